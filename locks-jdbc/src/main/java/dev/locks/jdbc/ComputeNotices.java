package dev.locks.jdbc;

import dev.locks.spi.RemoteComputeStore.Notice;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The payload of a {@code NOTIFY} on the compute cache's channel (and, on the databases without notifications, of
 * a row of {@code <prefix>compute_notice}, cut alike): the notice's fields, each framed as
 * {@code <length in chars>:<text>} (node, stored key, miss, outcome, then class name and message when there are
 * any). PostgreSQL refuses a payload of {@value #MAX_BYTES} bytes or more, and a refused notice would undo the
 * step it tells of: a longer one loses the end of its message, then its class name (a failure still fails, as
 * {@code ComputeFailedException} without them); one whose key alone is too long carries no key, and other nodes
 * drop it (their waiters look again by themselves within a poll interval).
 */
final class ComputeNotices {

    /** PostgreSQL's limit on a payload (bytes in the server's encoding; UTF-8 assumed). */
    static final int MAX_BYTES = 8000;

    private static final int BUDGET = MAX_BYTES - 100;

    private ComputeNotices() {
    }

    /** The payload of {@code notice}, whose key is {@code storedKey} (with the key prefix). */
    static String encode(Notice notice, String storedKey) {
        String className = notice.className();
        String message = notice.message();
        int fixed = utf8(notice.node()) + utf8(notice.miss()) + utf8(notice.outcome().name()) + 40;
        if (fixed + utf8(storedKey) > BUDGET) {
            return frame(notice.node(), "", notice.miss(), notice.outcome().name(), null, null);
        }
        int left = BUDGET - fixed - utf8(storedKey);
        if (className != null && utf8(className) > left) {
            className = truncated(className, left);
            message = null;
        }
        if (message != null) {
            message = truncated(message, left - (className == null ? 0 : utf8(className)));
        }
        return frame(notice.node(), storedKey, notice.miss(), notice.outcome().name(), className, message);
    }

    /**
     * The notice in {@code payload}, its key as stored (with the key prefix); {@code null} if it is not one
     * (or carries no key).
     */
    static Notice decode(String payload) {
        List<String> fields = new ArrayList<>(6);
        int at = 0;
        while (at < payload.length()) {
            int colon = payload.indexOf(':', at);
            if (colon <= at || fields.size() == 6) {
                return null;
            }
            int length;
            try {
                length = Integer.parseInt(payload, at, colon, 10);
            } catch (NumberFormatException e) {
                return null;
            }
            int end = colon + 1 + length;
            if (length < 0 || end > payload.length()) {
                return null;
            }
            fields.add(payload.substring(colon + 1, end));
            at = end;
        }
        if (fields.size() < 4 || fields.get(1).isEmpty()) {
            return null;
        }
        Notice.Outcome outcome;
        try {
            outcome = Notice.Outcome.valueOf(fields.get(3));
        } catch (IllegalArgumentException e) {
            return null;
        }
        return new Notice(fields.get(0), fields.get(1), fields.get(2), outcome,
                fields.size() > 4 ? fields.get(4) : null, fields.size() > 5 ? fields.get(5) : null);
    }

    private static String frame(String node, String key, String miss, String outcome, String className,
            String message) {
        StringBuilder payload = new StringBuilder(64 + key.length());
        for (String field : new String[] {node, key, miss, outcome, className, message}) {
            if (field == null) {
                break;
            }
            payload.append(field.length()).append(':').append(field);
        }
        return payload.toString();
    }

    /** The longest start of {@code text} within {@code maxBytes} of UTF-8, never splitting a code point. */
    private static String truncated(String text, int maxBytes) {
        int bytes = 0;
        int end = 0;
        while (end < text.length()) {
            int point = text.codePointAt(end);
            int size = point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
            if (bytes + size > Math.max(0, maxBytes)) {
                break;
            }
            bytes += size;
            end += Character.charCount(point);
        }
        return text.substring(0, end);
    }

    private static int utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
