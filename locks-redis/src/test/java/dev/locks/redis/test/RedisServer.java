package dev.locks.redis.test;

import dev.locks.test.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} process of a test's own, on a free loopback port, without persistence: started,
 * stopped (SIGTERM, or SIGKILL) and restarted on the same port by the test. Never the machine's Redis on
 * 6379. Servers still running when the JVM exits are killed by a shutdown hook.
 */
public final class RedisServer implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);
    private static final Set<RedisServer> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(
                new Thread(() -> RUNNING.forEach(RedisServer::kill), "redis-server-reaper"));
    }

    private final Path dir;
    private int port;
    private Process process;

    private RedisServer(Path dir) {
        this.dir = dir;
    }

    /** Starts a server on a free loopback port and returns once it answers. */
    public static RedisServer start() {
        RedisServer server = new RedisServer(newDir());
        FreePorts.launch(port -> {
            server.port = port;
            server.launch();
        });
        return server;
    }

    /**
     * Starts a server on {@code port} and returns once it answers.
     *
     * @throws IllegalStateException if it cannot start there (another process holds the port)
     */
    static RedisServer startOn(int port) {
        RedisServer server = new RedisServer(newDir());
        server.port = port;
        server.launch();
        return server;
    }

    private static Path newDir() {
        try {
            return Files.createTempDirectory("redis-test-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return port;
    }

    public long pid() {
        Process running = process;
        if (running == null) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        return running.pid();
    }

    public boolean isRunning() {
        Process running = process;
        return running != null && running.isAlive();
    }

    /** Stops the server gracefully (SIGTERM to its pid), or with SIGKILL if it lingers; its data is gone. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        ProcessHandle handle = ProcessHandle.of(process.pid()).orElse(null);
        if (handle != null) {
            handle.destroy();
            try {
                handle.onExit().get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                handle.destroyForcibly();
            }
        }
        await(process);
    }

    /** Kills the server at once (SIGKILL to its pid), as a crash would. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroyForcibly);
        await(process);
    }

    /** Starts the server again on the same port (stopping it first if it runs), empty. */
    public synchronized void restart() {
        stop();
        launch();
    }

    /** Sends one command on a fresh connection and returns the reply ({@link RespClient}). */
    public Object command(String... args) {
        return RespClient.call(port, args);
    }

    public void flushAll() {
        command("FLUSHALL");
    }

    /** {@code INFO commandstats} as command name to number of calls (script-internal calls included). */
    public Map<String, Long> commandCalls() {
        Map<String, Long> calls = new HashMap<>();
        for (String line : ((String) command("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String stats = line.substring(line.indexOf(':') + 1);
                for (String stat : stats.split(",")) {
                    if (stat.startsWith("calls=")) {
                        calls.put(name, Long.parseLong(stat.substring("calls=".length())));
                    }
                }
            }
        }
        return calls;
    }

    /** {@code PUBSUB NUMSUB channel}: how many connections subscribe to {@code channel}. */
    public long subscribers(String channel) {
        List<?> reply = (List<?>) command("PUBSUB", "NUMSUB", channel);
        return (Long) reply.get(1);
    }

    @Override
    public synchronized void close() {
        stop();
        RUNNING.remove(this);
    }

    private synchronized void launch() {
        ProcessBuilder builder = new ProcessBuilder("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--dir", dir.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()));
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run redis-server (is it installed? .ci/run installs it)", e);
        }
        RUNNING.add(this);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                process = null;
                throw new IllegalStateException("redis-server exited at start on port " + port + "; see " + dir);
            }
            if (answers(port, process)) {
                return;
            }
            sleep(20);
        }
        kill();
        throw new IllegalStateException(
                "redis-server did not answer on port " + port + " within " + START_TIMEOUT);
    }

    /**
     * Whether {@code process} is the redis-server that answers on {@code port}: its {@code INFO server} names the
     * process's pid. Another redis-server that holds the port (another test JVM's, which started on it first) is
     * not taken for it: this one then exits, unable to bind, and its start fails, instead of running the tests on a
     * server that the other JVM's tests flush and restart.
     */
    static boolean answers(int port, Process process) {
        try {
            return RespClient.call(port, "INFO", "server") instanceof String info
                    && info.contains("\nprocess_id:" + process.pid() + "\r\n");
        } catch (RuntimeException notYet) {
            return false; // not listening yet
        }
    }

    private void await(Process exiting) {
        try {
            if (!exiting.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("redis-server " + exiting.pid() + " did not exit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }


    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "redis-server on 127.0.0.1:" + port + (isRunning() ? " (pid " + pid() + ")" : " (stopped)");
    }
}
