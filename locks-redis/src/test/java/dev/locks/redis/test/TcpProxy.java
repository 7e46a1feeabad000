package dev.locks.redis.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a free loopback port in front of a test's {@code redis-server}, to cut one node off from
 * Redis the way a stalled network does: {@link #cut()} stops forwarding in both directions (the connections
 * stay open, bytes wait, so the client's commands time out), {@link #resume()} forwards again what waited,
 * {@link #holdReplies()} stops only the server's replies (the requests go on, and run; their answers wait),
 * {@link #holdRequests()} only the client's requests (they run when delivered, late),
 * and {@link #reset()} drops every open connection with what waited (as a partition that ends with reset
 * connections does) and forwards new ones. Two threads per connection; {@link #close()} stops everything.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private boolean cut;
    private boolean repliesHeld;
    private boolean requestsHeld;
    private volatile boolean closed;

    private TcpProxy(int target) {
        this.target = target;
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        daemon("tcp-proxy-accept-" + server.getLocalPort(), this::accept).start();
    }

    /** A proxy to {@code 127.0.0.1:targetPort}, forwarding. */
    public static TcpProxy to(int targetPort) {
        return new TcpProxy(targetPort);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Stops forwarding: bytes wait in both directions, connections stay open. */
    public void cut() {
        synchronized (gate) {
            cut = true;
        }
    }

    /** Stops forwarding the server's replies only: requests reach the server and run, their replies wait. */
    public void holdReplies() {
        synchronized (gate) {
            repliesHeld = true;
        }
    }

    /** Stops forwarding the client's requests only: they wait (delivered late by {@link #resume()}), replies go on. */
    public void holdRequests() {
        synchronized (gate) {
            requestsHeld = true;
        }
    }

    /** Forwards again, what waited first. */
    public void resume() {
        synchronized (gate) {
            cut = false;
            repliesHeld = false;
            requestsHeld = false;
            gate.notifyAll();
        }
    }

    /** Drops every open connection, and what waited in it, then forwards new connections. */
    public void reset() {
        for (Socket socket : open) {
            closeQuietly(socket);
        }
        resume();
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        reset();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 5_000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            open.add(client);
            open.add(upstream);
            daemon("tcp-proxy-up", () -> pump(client, upstream, false)).start();
            daemon("tcp-proxy-down", () -> pump(upstream, client, true)).start();
        }
    }

    /**
     * Copies {@code from} to {@code to} ({@code replies}: the server's way), holding each chunk while cut (or, for
     * replies, while they are held); ends both sockets when either ends.
     */
    private void pump(Socket from, Socket to, boolean replies) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int read; (read = in.read(buffer)) >= 0; ) {
                awaitForwarding(replies);
                if (from.isClosed()) {
                    return; // reset while the chunk waited: it is dropped
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // closed (reset), or the other side went away
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            open.remove(from);
            open.remove(to);
        }
    }

    private void awaitForwarding(boolean replies) throws InterruptedException {
        synchronized (gate) {
            while ((cut || replies && repliesHeld || !replies && requestsHeld) && !closed) {
                gate.wait();
            }
        }
    }

    private static Thread daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // already closed
        }
    }
}
