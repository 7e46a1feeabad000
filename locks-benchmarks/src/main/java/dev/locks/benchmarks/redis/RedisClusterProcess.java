package dev.locks.benchmarks.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of the benchmark's own: 3 masters, no replicas, no persistence, each a {@code redis-server
 * --cluster-enabled yes} on a free loopback port (and its cluster bus on another), joined by {@code redis-cli --cluster create}. Killed by a
 * shutdown hook if the JVM exits without {@link #close()}.
 */
public final class RedisClusterProcess implements AutoCloseable {

    private static final int MASTERS = 3;
    private static final long START_MILLIS = 30_000;

    private final List<Integer> ports = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private final Thread reaper = new Thread(this::kill, "redis-cluster-reaper");

    private RedisClusterProcess() {
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /** Starts the cluster and returns once every node reports {@code cluster_state:ok}. */
    public static RedisClusterProcess start() throws IOException, InterruptedException {
        RedisClusterProcess cluster = new RedisClusterProcess();
        try {
            Path dir = Files.createTempDirectory("locks-bench-redis-cluster-");
            for (int i = 0; i < MASTERS; i++) {
                int port = freePort();
                Path nodeDir = Files.createDirectories(dir.resolve(Integer.toString(port)));
                cluster.ports.add(port);
                cluster.processes.add(new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind",
                        "127.0.0.1", "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-port", Integer.toString(freePort()), "--save", "",
                        "--appendonly", "no", "--daemonize", "no", "--dir", nodeDir.toString())
                        .redirectErrorStream(true).redirectOutput(nodeDir.resolve("redis.log").toFile()).start());
            }
            for (int port : cluster.ports) {
                cluster.await(port, "PING", "+PONG");
            }
            List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
            cluster.ports.forEach(port -> create.add("127.0.0.1:" + port));
            create.add("--cluster-yes");
            Process join = new ProcessBuilder(create).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("create.log").toFile()).start();
            if (!join.waitFor(START_MILLIS, TimeUnit.MILLISECONDS) || join.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed: see " + dir.resolve("create.log"));
            }
            for (int port : cluster.ports) {
                cluster.await(port, "CLUSTER INFO", "cluster_state:ok");
            }
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    public List<Integer> ports() {
        return List.copyOf(ports);
    }

    /** {@code redis://127.0.0.1:port} of each node, for Redisson. */
    public List<String> uris() {
        return ports.stream().map(port -> "redis://127.0.0.1:" + port).toList();
    }

    @Override
    public void close() {
        kill();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    private void kill() {
        for (Process process : processes) {
            process.destroyForcibly();
        }
        for (Process process : processes) {
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void await(int port, String command, String expected) throws InterruptedException {
        long deadline = System.currentTimeMillis() + START_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            if (reply(port, command).contains(expected)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("node " + port + " did not answer " + expected + " to " + command);
    }

    /** The first bytes of the reply to an inline command, or "" if the node cannot be reached yet. */
    private static String reply(int port, String command) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = new byte[512];
            int read = in.read(reply);
            return read <= 0 ? "" : new String(reply, 0, read, StandardCharsets.US_ASCII);
        } catch (IOException notYet) {
            return "";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
