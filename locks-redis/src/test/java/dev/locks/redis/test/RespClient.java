package dev.locks.redis.test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A few lines of RESP over a socket, so that tests can inspect a server (INFO, PUBSUB, MONITOR, CLIENT
 * PAUSE) without going through the client under test.
 */
public final class RespClient implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RespClient(int port) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1_000);
            socket.setSoTimeout(10_000);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to 127.0.0.1:" + port, e);
        }
    }

    /** One command on a fresh connection. */
    public static Object call(int port, String... args) {
        try (RespClient client = new RespClient(port)) {
            return client.send(args);
        }
    }

    /** Sends a command and reads its reply: String, Long, List, or null; an error reply throws. */
    public Object send(String... args) {
        write(args);
        return read();
    }

    public void write(String... args) {
        ByteArrayOutputStream command = new ByteArrayOutputStream();
        command.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            command.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            command.writeBytes(bytes);
            command.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        try {
            out.write(command.toByteArray());
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Object read() {
        try {
            String line = line();
            char type = line.charAt(0);
            String rest = line.substring(1);
            switch (type) {
                case '+':
                    return rest;
                case '-':
                    throw new IllegalStateException("Redis error: " + rest);
                case ':':
                    return Long.parseLong(rest);
                case '$': {
                    int length = Integer.parseInt(rest);
                    if (length < 0) {
                        return null;
                    }
                    byte[] bytes = in.readNBytes(length + 2);
                    return new String(bytes, 0, length, StandardCharsets.UTF_8);
                }
                case '*': {
                    int count = Integer.parseInt(rest);
                    if (count < 0) {
                        return null;
                    }
                    List<Object> items = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        items.add(read());
                    }
                    return items;
                }
                default:
                    throw new IllegalStateException("unexpected RESP line: " + line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One CRLF-terminated line (MONITOR streams these). */
    public String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        for (;;) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
