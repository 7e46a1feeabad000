package dev.locks.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The body of a release notification: the released keys (without prefix), each written as
 * {@code <byte length>:<key>} and concatenated, so that any key, whatever characters it holds, comes back
 * whole. {@code release.lua} writes the same format.
 */
final class ReleaseMessage {

    private ReleaseMessage() {
    }

    static String encode(String key) {
        return key.getBytes(StandardCharsets.UTF_8).length + ":" + key;
    }

    /** Hands each key of {@code body} to {@code released}; a malformed rest is ignored. */
    static void decode(byte[] body, Consumer<String> released) {
        int i = 0;
        while (i < body.length) {
            int length = 0;
            int digits = 0;
            while (i < body.length && body[i] >= '0' && body[i] <= '9' && digits < 10) {
                length = length * 10 + (body[i++] - '0');
                digits++;
            }
            if (digits == 0 || i >= body.length || body[i] != ':' || length > body.length - i - 1) {
                return;
            }
            released.accept(new String(body, i + 1, length, StandardCharsets.UTF_8));
            i += 1 + length;
        }
    }

    static List<String> decode(byte[] body) {
        List<String> keys = new ArrayList<>();
        decode(body, keys::add);
        return keys;
    }
}
