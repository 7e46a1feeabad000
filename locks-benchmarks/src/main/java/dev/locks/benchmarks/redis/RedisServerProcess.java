package dev.locks.benchmarks.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} of the benchmark's own on a free loopback port, without persistence; never the
 * machine's Redis on 6379. Killed by a shutdown hook if the JVM exits without {@link #close()}.
 */
public final class RedisServerProcess implements AutoCloseable {

    private static final long START_MILLIS = 10_000;

    private final int port;
    private final Process process;
    private final Thread reaper;

    private RedisServerProcess(int port, Process process) {
        this.port = port;
        this.process = process;
        this.reaper = new Thread(process::destroyForcibly, "redis-server-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /** Starts a server and returns once it answers (itself, not another server on the port). */
    public static RedisServerProcess start() {
        IllegalStateException failure = null;
        for (int tries = 0; tries < 5; tries++) { // another process may take the free port first
            try {
                return launch(freePort());
            } catch (IllegalStateException e) {
                failure = e;
            }
        }
        throw failure;
    }

    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:port}, for Redisson. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    private static RedisServerProcess launch(int port) {
        Process process;
        try {
            Path dir = Files.createTempDirectory("locks-bench-redis-");
            process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run redis-server (apt-get install redis-server)", e);
        }
        RedisServerProcess server = new RedisServerProcess(port, process);
        long deadline = System.currentTimeMillis() + START_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                server.close();
                throw new IllegalStateException("redis-server exited at start on port " + port);
            }
            if (server.answers()) {
                return server;
            }
            sleep(20);
        }
        server.close();
        throw new IllegalStateException("redis-server did not answer on port " + port);
    }

    /** {@code INFO section}'s text, on a connection of its own (one {@code info} call on the server). */
    public String info(String section) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            OutputStream out = socket.getOutputStream();
            out.write(("INFO " + section + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder header = new StringBuilder(); // "$<length>\r\n", then the text and "\r\n"
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("redis-server closed the connection");
                }
                header.append((char) c);
            }
            if (header.charAt(0) != '$') {
                throw new IOException("unexpected reply to INFO: " + header);
            }
            int length = Integer.parseInt(header.substring(1).trim());
            return new String(in.readNBytes(length), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("INFO " + section + " on port " + port, e);
        }
    }

    /**
     * Whether this server's process answers on its port: its {@code INFO server} names the process's pid, so that
     * another redis-server holding the port (another session's, which took it first) is not measured instead.
     */
    private boolean answers() {
        try {
            return info("server").contains("\nprocess_id:" + process.pid() + "\r\n");
        } catch (RuntimeException notYet) { // not listening yet, or not ready
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
