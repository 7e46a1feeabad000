package dev.locks.internal;

import dev.locks.spi.RemoteComputeStore.Notice;
import java.util.ArrayList;
import java.util.List;

/**
 * The one text form of a {@link Notice} that every {@link dev.locks.spi.RemoteComputeStore} publishes: its fields,
 * each framed as {@code <length in chars>:<text>} (node, key, miss, outcome name, then class name and message when
 * there are any). A store that can publish only so many bytes ({@code maxNoticeBytes}) gets a shorter one: the
 * end of the message goes first, then the class name (a failure still fails, as {@code ComputeFailedException}
 * without them); one whose key alone is too long carries no key, and other nodes drop it (their waiters look again
 * by themselves within a poll interval). Lengths count UTF-8, with U+0000 and U+0001 as two bytes (as the stores
 * that escape them store them). Not an API.
 */
final class ComputeNoticeFrames {

    /** Room kept for the framing itself (the lengths and colons) and a store's own additions. */
    private static final int FRAMING = 40;

    private ComputeNoticeFrames() {
    }

    /** {@code notice} framed, at most {@code maxBytes} long (as counted above). */
    public static String frame(Notice notice, int maxBytes) {
        String className = notice.className();
        String message = notice.message();
        long fixed = (long) bytes(notice.node()) + bytes(notice.miss()) + bytes(notice.outcome().name()) + FRAMING;
        if (fixed + bytes(notice.key()) > maxBytes) {
            return frame(notice.node(), "", notice.miss(), notice.outcome().name(), null, null);
        }
        long left = maxBytes - fixed - bytes(notice.key());
        if (className != null && bytes(className) > left) {
            className = truncated(className, left);
            message = null;
        }
        if (message != null) {
            message = truncated(message, left - (className == null ? 0 : bytes(className)));
        }
        return frame(notice.node(), notice.key(), notice.miss(), notice.outcome().name(), className, message);
    }

    /** The notice {@code framed} holds; {@code null} if it is not one (or carries no key). */
    public static Notice parse(String framed) {
        if (framed == null) {
            return null;
        }
        List<String> fields = new ArrayList<>(6);
        int at = 0;
        while (at < framed.length()) {
            int colon = framed.indexOf(':', at);
            if (colon <= at || fields.size() == 6) {
                return null;
            }
            int length;
            try {
                length = Integer.parseInt(framed, at, colon, 10);
            } catch (NumberFormatException e) {
                return null;
            }
            int end = colon + 1 + length;
            if (length < 0 || end > framed.length() || end < 0) {
                return null;
            }
            fields.add(framed.substring(colon + 1, end));
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

    private static String frame(String... fields) {
        StringBuilder framed = new StringBuilder(64 + fields[1].length());
        for (String field : fields) {
            if (field == null) {
                break;
            }
            framed.append(field.length()).append(':').append(field);
        }
        return framed.toString();
    }

    /** The longest start of {@code text} within {@code maxBytes}, never splitting a code point. */
    static String truncated(String text, long maxBytes) {
        long used = 0;
        int end = 0;
        while (end < text.length()) {
            int size = size(text.codePointAt(end));
            if (used + size > Math.max(0, maxBytes)) {
                break;
            }
            used += size;
            end += Character.charCount(text.codePointAt(end));
        }
        return text.substring(0, end);
    }

    private static int bytes(String text) {
        int total = 0;
        for (int at = 0; at < text.length(); at += Character.charCount(text.codePointAt(at))) {
            total += size(text.codePointAt(at));
        }
        return total;
    }

    private static int size(int point) {
        return point <= 1 ? 2 : point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    }
}
