package dev.locks.redis.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * Counts round trips instead of assuming them: a {@code MONITOR} connection that lists the commands clients
 * sent, leaving out those that scripts ran inside the server.
 */
public final class RedisMonitor implements AutoCloseable {

    private final int port;
    private final RespClient client;

    public RedisMonitor(RedisServer server) {
        this.port = server.port();
        this.client = new RespClient(port);
        Object reply = client.send("MONITOR");
        if (!"OK".equals(reply)) {
            throw new IllegalStateException("MONITOR answered " + reply);
        }
    }

    /**
     * The names (lower case) of the commands clients sent since the previous call, in order: everything
     * up to a marker this method sends from another connection.
     */
    public List<String> commandsSent() {
        String marker = "monitor-mark-" + UUID.randomUUID();
        RespClient.call(port, "ECHO", marker);
        List<String> commands = new ArrayList<>();
        try {
            for (;;) {
                String line = client.line(); // +1700000000.123456 [0 127.0.0.1:40000] "evalsha" "..." ...
                if (line.contains(marker)) {
                    return commands;
                }
                int open = line.indexOf('[');
                int close = line.indexOf(']', open);
                if (open < 0 || close < 0 || line.substring(open + 1, close).endsWith(" lua")) {
                    continue;
                }
                int quote = line.indexOf('"', close);
                commands.add(line.substring(quote + 1, line.indexOf('"', quote + 1)).toLowerCase(Locale.ROOT));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
