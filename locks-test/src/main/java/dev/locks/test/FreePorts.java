package dev.locks.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.function.IntConsumer;

/** Free loopback ports, for tests that start a server of their own (never a fixed port). */
public final class FreePorts {

    /** How many ports {@link #launch} tries: another process may take a free port before the server does. */
    private static final int TRIES = 5;

    private FreePorts() {
    }

    /** A port on the loopback interface that is free now (another process may take it before the caller). */
    public static int next() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts a server on a free port, trying another one when the start fails with an
     * {@link IllegalStateException} (the port was taken meanwhile), up to five ports.
     *
     * @param start starts the server on the given port, or throws {@link IllegalStateException}
     * @return the port the server started on
     */
    public static int launch(IntConsumer start) {
        IllegalStateException failure = null;
        for (int tries = 0; tries < TRIES; tries++) {
            int port = next();
            try {
                start.accept(port);
                return port;
            } catch (IllegalStateException e) {
                failure = e;
            }
        }
        throw failure;
    }
}
