package dev.locks.internal;

import dev.locks.ComputeFailedException;
import dev.locks.ComputeOutcome;
import dev.locks.internal.ValueStore.Entry;
import dev.locks.spi.RemoteComputeStore;
import dev.locks.spi.RemoteComputeStore.Claimant;
import dev.locks.spi.RemoteComputeStore.Completion;
import dev.locks.spi.RemoteComputeStore.Miss;
import dev.locks.spi.RemoteComputeStore.Notice;
import dev.locks.spi.RemoteComputeStore.Ticket;
import dev.locks.spi.ValueSerializer;
import java.time.Duration;
import java.time.Instant;

/**
 * A {@link RemoteComputeStore} as the core's protocol across nodes uses it: values as objects, notices as
 * {@link Notice}s. It owns, once for every store, what the store leaves to the core:
 * <ul>
 *   <li><b>Serialization</b>, by the cache's {@link ValueSerializer}: a value it cannot write fails the completion
 *       with the serializer's exception, as it is, before anything is sent.</li>
 *   <li><b>Unreadable values</b>: bytes the serializer cannot read are a miss, never an exception. Read as the
 *       key's value ({@link #get}, {@link #claim}, an unexpired {@link #entry}) they are removed if they are still
 *       the same bytes ({@link RemoteComputeStore#discard}), reported ({@link Listener#unreadable}), and the
 *       lookup goes on as if they were missing (a claim is made again); read elsewhere (a stale copy, an
 *       invalidated miss's value, a done record) they are reported and missing.</li>
 *   <li><b>Notices</b>: framed ({@link ComputeNoticeFrames}) within the store's {@link
 *       RemoteComputeStore#maxNoticeBytes()}, and parsed as they come in (one that is not well formed is
 *       dropped).</li>
 * </ul>
 * Thread-safe. Not an API.
 */
final class ComputeValues implements AutoCloseable {

    /**
     * The most of a failure's message (UTF-8 bytes) that the store keeps and other nodes' waiters get, however it
     * reaches them (a notice or the miss's record): a notice on PostgreSQL carries at most 8,000 bytes, and a
     * megabyte-long message written to the record reached a waiter that read the record whole.
     */
    static final int MAX_FAILURE_MESSAGE_BYTES = 4_000;

    private static final Listener UNSUBSCRIBED = new Listener() {
        @Override
        public void noticed(Notice notice) {
        }

        @Override
        public void unreadable(String key, Throwable cause) {
        }
    };

    private final RemoteComputeStore store;
    private final ValueSerializer serializer;
    private volatile Listener listener = UNSUBSCRIBED;

    public ComputeValues(RemoteComputeStore store, ValueSerializer serializer) {
        this.store = store;
        this.serializer = serializer;
    }

    /** The stored, unexpired value of {@code key}, or {@code null} (also when it cannot be read). */
    public Object get(String key) {
        byte[] stored = store.get(key);
        return stored == null ? null : readable(key, stored);
    }

    /** {@link RemoteComputeStore#invalidate}, with the notice of node {@code node}. */
    public void invalidate(String node, String key) {
        store.invalidate(key, frame(Notice.invalidated(node, key)));
    }

    /** The value of the invalidated miss {@code missId}, or {@code null} (also when it cannot be read). */
    public Object invalidatedValue(String key, String missId) {
        byte[] stored = store.invalidatedValue(key, missId);
        return stored == null ? null : deserialize(key, stored);
    }

    /** {@link RemoteComputeStore#claim}, made again when the value it found cannot be read (once discarded). */
    public Claim claim(String key, Claimant claimant, Miss awaited) {
        while (true) {
            RemoteComputeStore.Claim claim = store.claim(key, claimant, awaited);
            if (claim instanceof RemoteComputeStore.Claim.Hit hit) {
                Object value = readable(key, hit.value());
                if (value != null) {
                    return new Claim.Hit(value);
                }
            } else if (claim instanceof RemoteComputeStore.Claim.Compute compute) {
                return new Claim.Compute(compute.miss(), compute.ticket());
            } else if (claim instanceof RemoteComputeStore.Claim.Wait wait) {
                return new Claim.Wait(wait.miss(), wait.pttlMillis(), wait.computer(), wait.startedAt());
            } else {
                return new Claim.Done(outcome(key, (RemoteComputeStore.Claim.Done) claim));
            }
        }
    }

    /**
     * {@link RemoteComputeStore#complete}: {@code value} written by the serializer, with the notices of node
     * {@code node}.
     *
     * @param staleIfError {@code null} for a plain completion; else a fresh one, with this stale window
     * @throws RuntimeException the serializer's, when it cannot write {@code value}: nothing was sent
     */
    public boolean complete(String node, String key, Ticket ticket, Object value, Duration ttl,
            Duration staleIfError) {
        byte[] bytes = value == null ? null : serializer.serialize(value);
        boolean nothing = value == null;
        return store.complete(key, ticket, new Completion(bytes, ttl, staleIfError != null,
                staleIfError == null ? Duration.ZERO : staleIfError,
                frame(Notice.completed(node, key, ticket.miss(), nothing)),
                frame(Notice.completedInvalidated(node, key, ticket.miss(), nothing))));
    }

    /** A plain {@link #complete(String, String, Ticket, Object, Duration, Duration)}. */
    public boolean complete(String node, String key, Ticket ticket, Object value, Duration ttl) {
        return complete(node, key, ticket, value, ttl, null);
    }

    /** {@link RemoteComputeStore#fail} with {@code error}'s class name and message, and its notice. */
    public boolean fail(String node, String key, Ticket ticket, Throwable error) {
        Notice failed = Notice.failed(node, key, ticket.miss(), error);
        if (failed.message() != null && failed.message().length() > MAX_FAILURE_MESSAGE_BYTES / 4) {
            failed = new Notice(node, key, ticket.miss(), failed.outcome(), failed.className(),
                    ComputeNoticeFrames.truncated(failed.message(), MAX_FAILURE_MESSAGE_BYTES));
        }
        return store.fail(key, ticket, failed.className(), failed.message(), frame(failed));
    }

    /** {@link RemoteComputeStore#entry}, its value read (an unreadable one is missing). */
    public Entry entry(String key) {
        RemoteComputeStore.Entry entry = store.entry(key);
        if (entry == null) {
            return null;
        }
        Object value = entry.stale() ? deserialize(key, entry.value()) : readable(key, entry.value());
        return value == null ? null : new Entry(value, entry.ageMillis(), entry.stale(), entry.backingOff());
    }

    /** {@link RemoteComputeStore#backOff}. */
    public boolean backOff(String key, Duration backOff) {
        return store.backOff(key, backOff);
    }

    /** Hands {@code listener} every well-formed notice, and the values that could not be read. */
    public void subscribe(Listener listener) {
        this.listener = listener;
        store.subscribe(framed -> {
            Notice notice = ComputeNoticeFrames.parse(framed);
            if (notice != null) {
                listener.noticed(notice);
            }
        });
    }

    /** {@link RemoteComputeStore#close}. */
    @Override
    public void close() {
        store.close();
    }

    private String frame(Notice notice) {
        return ComputeNoticeFrames.frame(notice, store.maxNoticeBytes());
    }

    private ComputeOutcome outcome(String key, RemoteComputeStore.Claim.Done done) {
        return switch (done.outcome()) {
            case FAILED -> new ComputeOutcome.Failed(new ComputeFailedException(key, done.className(),
                    done.message()));
            case VALUE, UNSTORED -> new ComputeOutcome.Value(done.value() == null ? null
                    : deserialize(key, done.value()));
            default -> new ComputeOutcome.Value(null);
        };
    }

    /** {@code stored}, read; or, if it cannot be read, {@code null} once it is reported and discarded. */
    private Object readable(String key, byte[] stored) {
        Object value = deserialize(key, stored);
        if (value == null) {
            store.discard(key, stored);
        }
        return value;
    }

    /** {@code stored}, read; {@code null}, reported, if it cannot be (never an exception: it is a miss). */
    private Object deserialize(String key, byte[] stored) {
        try {
            return serializer.deserialize(stored);
        } catch (RuntimeException e) {
            listener.unreadable(key, e);
            return null;
        }
    }

    /** What the node hears: notices from the store, and the values that could not be read. */
    public interface Listener {

        /** A miss ended, or a key was invalidated, on some node. */
        void noticed(Notice notice);

        /** The stored value of {@code key} could not be read, for {@code cause}: it is a miss. */
        void unreadable(String key, Throwable cause);
    }

    /** What a {@link #claim} found, its value read. */
    public sealed interface Claim {

        /** The value is stored after all. */
        record Hit(Object value) implements Claim {
        }

        /** The claimant computes: {@link RemoteComputeStore.Claim.Compute}. */
        record Compute(Miss miss, Ticket ticket) implements Claim {
        }

        /** Another computer holds the miss: {@link RemoteComputeStore.Claim.Wait}. */
        record Wait(Miss miss, long pttlMillis, String computer, Instant startedAt) implements Claim {
        }

        /**
         * The awaited miss is over: a {@code null} result; a failure as a {@link ComputeFailedException} with the
         * original class name and message; or, for an invalidated miss, its unstored value.
         */
        record Done(ComputeOutcome outcome) implements Claim {
        }
    }
}
