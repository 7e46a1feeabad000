package dev.locks.redis;

import dev.locks.spi.RemoteComputeStore.Notice;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * How a {@link Notice} travels on the channel of ended misses: each field framed as
 * {@code <byte length>:<text>} ({@link ReleaseMessage}), the outcome in lower case ({@code value}, {@code null},
 * {@code failed}, {@code unstored}, {@code invalidated}), the class name and message only for a failure (the
 * message only when there is one); and the whole framed once more, so that the lock side's
 * {@link ReleaseSubscription} delivers it whole.
 */
final class RedisComputeNotices {

    /** The outcome names the scripts write into a miss record, as {@link #encode} writes them. */
    static final String VALUE = "value";
    static final String NULL = "null";
    static final String FAILED = "failed";

    private RedisComputeNotices() {
    }

    /** The published body. */
    static String encode(Notice notice) {
        StringBuilder fields = new StringBuilder(64 + notice.key().length())
                .append(ReleaseMessage.encode(notice.node())).append(ReleaseMessage.encode(notice.key()))
                .append(ReleaseMessage.encode(notice.miss())).append(ReleaseMessage.encode(name(notice.outcome())));
        if (notice.className() != null) {
            fields.append(ReleaseMessage.encode(notice.className()));
            if (notice.message() != null) {
                fields.append(ReleaseMessage.encode(notice.message()));
            }
        }
        return ReleaseMessage.encode(fields.toString());
    }

    /** A notice from the (unframed) text the subscription delivered, or {@code null} if it is not one. */
    static Notice decode(String fields) {
        List<String> parts = ReleaseMessage.decode(fields.getBytes(StandardCharsets.UTF_8));
        if (parts.size() < 4 || parts.size() > 6) {
            return null;
        }
        Notice.Outcome outcome = outcome(parts.get(3));
        if (outcome == null) {
            return null;
        }
        return new Notice(parts.get(0), parts.get(1), parts.get(2), outcome,
                parts.size() > 4 ? parts.get(4) : null, parts.size() > 5 ? parts.get(5) : null);
    }

    private static String name(Notice.Outcome outcome) {
        return outcome.name().toLowerCase(Locale.ROOT);
    }

    private static Notice.Outcome outcome(String name) {
        for (Notice.Outcome each : Notice.Outcome.values()) {
            if (name(each).equals(name)) {
                return each;
            }
        }
        return null;
    }
}
