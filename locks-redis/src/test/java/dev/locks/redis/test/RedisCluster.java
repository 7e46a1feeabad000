package dev.locks.redis.test;

import dev.locks.test.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Redis Cluster of a test's own: {@code masters} masters (each with {@code replicasPerMaster} replicas) of
 * {@code redis-server --cluster-enabled yes} on free loopback ports in a temporary directory, joined by
 * {@code redis-cli --cluster create}; ready once every node reports {@code cluster_state:ok}. Nodes are
 * killed by pid ({@link #kill(int)}, {@link #close()}, or a shutdown hook when the JVM exits).
 */
public final class RedisCluster implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(
                new Thread(() -> RUNNING.forEach(Process::destroyForcibly), "redis-cluster-reaper"));
    }

    private final Path dir;
    private final int[] ports;
    private final Process[] processes;
    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    private RedisCluster(Path dir, int nodes) {
        this.dir = dir;
        this.ports = new int[nodes];
        this.processes = new Process[nodes];
    }

    /** Starts {@code masters} masters with {@code replicasPerMaster} replicas each and joins them. */
    public static RedisCluster start(int masters, int replicasPerMaster) {
        RedisCluster cluster;
        try {
            cluster = new RedisCluster(Files.createTempDirectory("redis-cluster-test-"),
                    masters * (1 + replicasPerMaster));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            for (int i = 0; i < cluster.ports.length; i++) {
                cluster.launch(i);
            }
            cluster.create(replicasPerMaster);
            cluster.awaitOk(cluster.ports.length);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** The ports of every node, masters first as created. */
    public int[] ports() {
        return ports.clone();
    }

    /** {@code CLUSTER KEYSLOT key}, asked of the cluster itself. */
    public int keySlot(String key) {
        return ((Long) RespClient.call(livePort(), "CLUSTER", "KEYSLOT", key)).intValue();
    }

    /** The port of the master that serves {@code slot} now, from {@code CLUSTER SLOTS} of a live node. */
    public int masterPortOf(int slot) {
        for (Object range : (List<?>) RespClient.call(livePort(), "CLUSTER", "SLOTS")) {
            List<?> entry = (List<?>) range;
            if ((Long) entry.get(0) <= slot && slot <= (Long) entry.get(1)) {
                return ((Long) ((List<?>) entry.get(2)).get(1)).intValue();
            }
        }
        throw new IllegalStateException("no master serves slot " + slot);
    }

    /** Sends one command to the node on {@code port}. */
    public Object command(int port, String... args) {
        return RespClient.call(port, args);
    }

    /**
     * Waits until every replica of the master on {@code port} has acknowledged all that master has written so
     * far (by its {@code ROLE}: each replica's acknowledged offset reaches the master's offset read first), for
     * at most 15 s: a replica is listed only once online, which after the cluster's start can take the first
     * sync's delay (5 s), and acknowledges once a second. A test calls it before killing the master, so that
     * what it wrote (a release included) is on the replica that takes over. {@code WAIT} cannot say this from a
     * connection of its own, since it waits only for that connection's writes, and a new one has none.
     *
     * @return how many replicas have it all
     */
    public int awaitReplicated(int port) {
        long offset = (Long) ((List<?>) RespClient.call(port, "ROLE")).get(1);
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (true) {
            List<?> replicas = (List<?>) ((List<?>) RespClient.call(port, "ROLE")).get(2);
            int inSync = 0;
            for (Object replica : replicas) {
                if (Long.parseLong(String.valueOf(((List<?>) replica).get(2))) >= offset) {
                    inSync++;
                }
            }
            if ((inSync > 0 && inSync == replicas.size()) || System.nanoTime() > deadline) {
                return inSync;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return inSync;
            }
        }
    }

    /** The port of the replica of the master on {@code masterPort}, by the replicas' {@code ROLE}. */
    public int replicaOf(int masterPort) {
        for (int port : ports) {
            if (processes[indexOf(port)] == null) {
                continue;
            }
            List<?> role = (List<?>) RespClient.call(port, "ROLE");
            if ("slave".equals(role.get(0)) && ((Long) role.get(2)).intValue() == masterPort) {
                return port;
            }
        }
        throw new IllegalStateException("no replica of " + masterPort);
    }

    /**
     * Waits until the node on {@code port} says it is a master ({@code ROLE}, polled every 20 ms), for at most 30 s.
     *
     * @return when it first did ({@link System#nanoTime()})
     */
    public long awaitMaster(int port) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!"master".equals(((List<?>) RespClient.call(port, "ROLE")).get(0))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the node on " + port + " was not promoted within 30 s");
            }
            Thread.sleep(20);
        }
        return System.nanoTime();
    }

    private int indexOf(int port) {
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] == port) {
                return i;
            }
        }
        throw new IllegalArgumentException("no node on port " + port);
    }

    /** Kills the node on {@code port} at once (SIGKILL to its pid), as a crash would. */
    public void kill(int port) {
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] == port && processes[i] != null) {
                processes[i].destroyForcibly();
                await(processes[i]);
                RUNNING.remove(processes[i]);
                processes[i] = null;
                return;
            }
        }
        throw new IllegalArgumentException("no running node on port " + port);
    }

    /** Pauses the node on {@code port} (SIGSTOP to its pid): it keeps its connections but answers nothing. */
    public void pause(int port) {
        signal(port, "-STOP");
    }

    /** Lets a {@link #pause paused} node run again (SIGCONT). */
    public void resume(int port) {
        signal(port, "-CONT");
    }

    private void signal(int port, String signal) {
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] == port && processes[i] != null) {
                try {
                    Process kill = new ProcessBuilder("kill", signal, Long.toString(processes[i].pid())).start();
                    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                        throw new IllegalStateException("kill " + signal + " " + processes[i].pid() + " failed");
                    }
                    return;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
        throw new IllegalArgumentException("no running node on port " + port);
    }

    /** {@code CONFIG SET name value} on every live node. */
    public void configSet(String name, String value) {
        for (int i = 0; i < ports.length; i++) {
            if (processes[i] != null) {
                RespClient.call(ports[i], "CONFIG", "SET", name, value);
            }
        }
    }

    /** The ports of the live masters. */
    public List<Integer> masterPorts() {
        List<Integer> masters = new ArrayList<>();
        for (int i = 0; i < ports.length; i++) {
            if (processes[i] != null && "master".equals(((List<?>) RespClient.call(ports[i], "ROLE")).get(0))) {
                masters.add(ports[i]);
            }
        }
        return masters;
    }

    /** Deletes every key on every live master. */
    public void flushAll() {
        for (int port : masterPorts()) {
            RespClient.call(port, "FLUSHALL");
        }
    }

    /** A started Lettuce cluster factory on this cluster ({@link RedisConnections#clusterConnectionFactory}), destroyed with it. */
    public synchronized LettuceConnectionFactory newConnectionFactory() {
        return owned(RedisConnections.clusterConnectionFactory(ports));
    }

    /**
     * As {@link #newConnectionFactory()}, with Lettuce's default topology refresh (none): {@link
     * RedisConnections#clusterConnectionFactoryWithoutRefresh}.
     */
    public synchronized LettuceConnectionFactory newConnectionFactoryWithoutRefresh() {
        return owned(RedisConnections.clusterConnectionFactoryWithoutRefresh(ports));
    }

    private LettuceConnectionFactory owned(LettuceConnectionFactory factory) {
        factories.add(factory);
        return factory;
    }

    @Override
    public synchronized void close() {
        factories.forEach(LettuceConnectionFactory::destroy);
        factories.clear();
        for (int i = 0; i < processes.length; i++) {
            if (processes[i] != null) {
                processes[i].destroyForcibly();
                await(processes[i]);
                RUNNING.remove(processes[i]);
                processes[i] = null;
            }
        }
    }

    private int livePort() {
        for (int i = 0; i < ports.length; i++) {
            if (processes[i] != null && processes[i].isAlive()) {
                return ports[i];
            }
        }
        throw new IllegalStateException("no node of the cluster runs");
    }

    private void launch(int i) {
        IllegalStateException failure = null;
        for (int tries = 0; tries < 5; tries++) { // another process may take the free port before we do
            ports[i] = FreePorts.next();
            Path nodeDir = dir.resolve(Integer.toString(ports[i]));
            try {
                Files.createDirectories(nodeDir);
                Process process = new ProcessBuilder("redis-server", "--port", Integer.toString(ports[i]),
                        "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                        "--cluster-config-file", nodeDir.resolve("nodes.conf").toString(),
                        "--cluster-port", Integer.toString(FreePorts.next()), "--cluster-node-timeout", "1000", "--save", "", "--appendonly", "no",
                        "--daemonize", "no", "--dir", nodeDir.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(nodeDir.resolve("redis.log").toFile()))
                        .start();
                RUNNING.add(process);
                processes[i] = process;
                if (awaitPing(i)) {
                    return;
                }
                failure = new IllegalStateException("redis-server did not start on port " + ports[i] + "; see " + nodeDir);
            } catch (IOException e) {
                throw new IllegalStateException("cannot run redis-server (is it installed? .ci/run installs it)", e);
            }
        }
        throw failure;
    }

    private boolean awaitPing(int i) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!processes[i].isAlive()) {
                RUNNING.remove(processes[i]);
                processes[i] = null;
                return false;
            }
            if (RedisServer.answers(ports[i], processes[i])) {
                return true;
            }
            RedisServer.sleep(20);
        }
        return false;
    }

    private void create(int replicasPerMaster) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        for (int port : ports) {
            command.add("127.0.0.1:" + port);
        }
        command.addAll(List.of("--cluster-replicas", Integer.toString(replicasPerMaster), "--cluster-yes"));
        try {
            Process cli = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!cli.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || cli.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run redis-cli", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating the cluster", e);
        }
    }

    /** Waits until every live node says {@code cluster_state:ok} and knows {@code nodes} nodes. */
    public void awaitOk(int nodes) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (allOk(nodes)) {
                return;
            }
            RedisServer.sleep(50);
        }
        throw new IllegalStateException("the cluster in " + dir + " is not ok after " + START_TIMEOUT);
    }

    private boolean allOk(int nodes) {
        for (int i = 0; i < ports.length; i++) {
            if (processes[i] == null) {
                continue;
            }
            try {
                String info = (String) RespClient.call(ports[i], "CLUSTER", "INFO");
                if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + nodes)) {
                    return false;
                }
            } catch (RuntimeException notYet) {
                return false;
            }
        }
        return true;
    }

    private static void await(Process exiting) {
        try {
            if (!exiting.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("redis-server " + exiting.pid() + " did not exit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
