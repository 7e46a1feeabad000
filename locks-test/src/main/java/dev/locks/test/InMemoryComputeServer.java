package dev.locks.test;

import dev.locks.LockUnavailableException;
import dev.locks.LocksClock;
import dev.locks.spi.RemoteComputeStore;
import dev.locks.spi.RemoteComputeStore.Claim;
import dev.locks.spi.RemoteComputeStore.Claimant;
import dev.locks.spi.RemoteComputeStore.Completion;
import dev.locks.spi.RemoteComputeStore.Miss;
import dev.locks.spi.RemoteComputeStore.Notice;
import dev.locks.spi.RemoteComputeStore.Ticket;
import dev.locks.spi.ValueSerializer;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A shared compute store in memory, standing in for a server that several nodes (caches) use: each
 * {@link #node()} is one node's {@link RemoteComputeStore}, with the semantics its javadoc gives, step by step
 * (each method one atomic step under the server's lock). Values are the bytes the core wrote, compared byte for
 * byte; values, compute locks and done records expire on the server's {@link LocksClock}; notices go to every
 * subscribed node, each on a thread of its own. It counts calls (round trips), can lose notices, make a value
 * unreadable, refuse to write a class of values (through its {@linkplain #serializer() serializer}), and be taken
 * down to simulate an outage (and come back as it was, or empty).
 */
public final class InMemoryComputeServer {

    /** How long the record of a miss that is done stays (as on Redis). */
    public static final Duration DONE_GRACE = Duration.ofSeconds(5);

    private static final long NEVER = Long.MAX_VALUE;
    /** Bytes that no {@link #serializer()} reads: a corrupt value. */
    private static final byte[] UNREADABLE = {(byte) 0xde, (byte) 0xad};

    private final LocksClock clock;
    private final Map<String, Value> values = new HashMap<>();
    /** The end of each backing-off key's error back-off. */
    private final Map<String, Long> backOffs = new HashMap<>();
    private final Map<String, Record> misses = new HashMap<>();
    private final Map<String, Record> invalidated = new HashMap<>();
    private final List<Node> subscribed = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    /** The objects the serializer wrote, by the number that stands for each: values keep their identity. */
    private final Map<Long, Object> written = new ConcurrentHashMap<>();
    private final AtomicLong writes = new AtomicLong();
    private volatile boolean down;
    private volatile boolean silent;
    private volatile Class<?> unwritable;

    public InMemoryComputeServer(LocksClock clock) {
        this.clock = clock;
    }

    /** One node's view of the server. */
    public Node node() {
        return new Node();
    }

    /**
     * How the caches of this server write values: as a number standing for the object itself (every node of the
     * server shares it, so values keep their identity, as they did in memory), refusing the class given to
     * {@link #refuse}; bytes it did not write cannot be read.
     */
    public ValueSerializer serializer() {
        return new ValueSerializer() {
            @Override
            public byte[] serialize(Object value) {
                Class<?> refused = unwritable;
                if (refused != null && refused.isInstance(value)) {
                    throw new IllegalArgumentException("cannot write a " + refused.getName());
                }
                long id = writes.incrementAndGet();
                written.put(id, value);
                return ByteBuffer.allocate(Long.BYTES).putLong(id).array();
            }

            @Override
            public Object deserialize(byte[] bytes) {
                Object value = bytes.length == Long.BYTES ? written.get(ByteBuffer.wrap(bytes).getLong()) : null;
                if (value == null) {
                    throw new IllegalArgumentException("corrupt bytes");
                }
                return value;
            }
        };
    }

    /** Simulates an outage (true) and its end (false). */
    public void down(boolean down) {
        this.down = down;
    }

    /** Ends an outage as a restart without persistence does: the server comes back up with no data. */
    public synchronized void restart() {
        values.clear();
        misses.clear();
        invalidated.clear();
        down = false;
    }

    /** While silent, notices are lost (a subscription that is down). */
    public void silent(boolean silent) {
        this.silent = silent;
    }

    /** Makes the stored value of {@code key}, if any, one that no node can read (corrupt bytes). */
    public synchronized void corrupt(String key) {
        Value stored = liveValue(key);
        if (stored != null) {
            values.put(key, new Value(UNREADABLE, stored.expiresNanos(), stored.writtenNanos(), stored.staleNanos()));
        }
    }

    /**
     * Values of {@code type} cannot be written: {@link #serializer()} refuses them with an
     * {@link IllegalArgumentException}, so the core sends nothing.
     */
    public void refuse(Class<?> type) {
        this.unwritable = type;
    }

    /** Whether a value of {@code key} is stored (unexpired). */
    public synchronized boolean holdsValue(String key) {
        return liveValue(key) != null;
    }

    /** How many times a store method was called, across all nodes. */
    public int calls(String method) {
        AtomicInteger count = calls.get(method);
        return count == null ? 0 : count.get();
    }

    private void call(String method) {
        if (down) {
            throw new LockUnavailableException("in-memory compute server is down", new IllegalStateException("down"));
        }
        calls.computeIfAbsent(method, m -> new AtomicInteger()).incrementAndGet();
    }

    private Value liveValue(String key) {
        Value stored = values.get(key);
        if (stored != null && expired(stored.expiresNanos())) {
            if (expired(stored.staleNanos())) {
                values.remove(key);
            }
            return null;
        }
        return stored;
    }

    /** The value of {@code key} past its TTL, within its stale window; else {@code null}. */
    private Value staleValue(String key) {
        Value stored = values.get(key);
        if (stored == null || !expired(stored.expiresNanos())) {
            return null;
        }
        if (expired(stored.staleNanos())) {
            values.remove(key);
            return null;
        }
        return stored;
    }

    private Record live(Map<String, Record> records, String key) {
        Record record = records.get(key);
        if (record != null && expired(record.expiresNanos)) {
            records.remove(key);
            return null;
        }
        return record;
    }

    private boolean expired(long expiresNanos) {
        return expiresNanos != NEVER && clock.nanoTime() - expiresNanos >= 0;
    }

    private long expiresAfter(long millis) {
        return millis <= 0 ? NEVER : clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** Whole milliseconds, rounded up so that a positive duration never becomes 0; at least {@code min}. */
    private static long millis(Duration duration, long min) {
        long millis;
        try {
            millis = duration.plusNanos(999_999).toMillis();
        } catch (ArithmeticException tooLong) {
            millis = Long.MAX_VALUE / 2;
        }
        return Math.max(min, millis);
    }

    private long remainingMillis(Record record) {
        return record.expiresNanos == NEVER ? -1
                : Math.max(0, TimeUnit.NANOSECONDS.toMillis(record.expiresNanos - clock.nanoTime() + 999_999));
    }

    private void publish(String notice) {
        if (!silent) {
            subscribed.forEach(node -> node.deliver(notice));
        }
    }

    private static Claim.Done done(Record record) {
        return new Claim.Done(record.outcome, record.outcome == Notice.Outcome.FAILED ? null : record.value,
                record.className, record.message);
    }

    /** A value, its expiry, when it was written, and until when it stays readable as stale. */
    private record Value(byte[] value, long expiresNanos, long writtenNanos, long staleNanos) {
    }

    /** A miss record: the compute lock while computing, kept for {@link #DONE_GRACE} once done. */
    private static final class Record {

        final String miss;
        final int turn;
        final String computer;
        final String description;
        final Instant at;
        final String hint;
        final long ttlMillis;
        boolean computing = true;
        Notice.Outcome outcome;
        String className;
        String message;
        byte[] value;
        long expiresNanos;

        Record(String miss, int turn, Claimant claimant, Instant at, String hint, long ttlMillis, long expiresNanos) {
            this.miss = miss;
            this.turn = turn;
            this.computer = claimant.computer();
            this.description = claimant.description();
            this.at = at;
            this.hint = hint;
            this.ttlMillis = ttlMillis;
            this.expiresNanos = expiresNanos;
        }

        Miss asMiss() {
            return new Miss(miss, turn, hint, ttlMillis);
        }
    }

    /** One node's {@link RemoteComputeStore} on this server. */
    public final class Node implements RemoteComputeStore {

        private volatile Listener listener;
        private volatile ExecutorService notifier;

        private Node() {
        }

        /** The server's {@link InMemoryComputeServer#serializer()}: what a cache on this node writes values with. */
        public ValueSerializer serializer() {
            return InMemoryComputeServer.this.serializer();
        }

        @Override
        public byte[] get(String key) {
            synchronized (InMemoryComputeServer.this) {
                call("get");
                Value stored = liveValue(key);
                return stored == null ? null : stored.value();
            }
        }

        @Override
        public boolean discard(String key, byte[] stored) {
            synchronized (InMemoryComputeServer.this) {
                call("discard");
                Value current = values.get(key);
                if (current == null || !Arrays.equals(current.value(), stored)) {
                    return false;
                }
                values.remove(key);
                return true;
            }
        }

        @Override
        public void invalidate(String key, String notice) {
            synchronized (InMemoryComputeServer.this) {
                call("invalidate");
                values.remove(key);
                backOffs.remove(key);
                Record current = live(misses, key);
                if (current == null || !current.computing) {
                    return;
                }
                misses.remove(key);
                invalidated.put(key, current);
                publish(notice);
            }
        }

        @Override
        public byte[] invalidatedValue(String key, String missId) {
            synchronized (InMemoryComputeServer.this) {
                call("invalidatedValue");
                Record old = live(invalidated, key);
                return old == null || !old.miss.equals(missId) ? null : old.value;
            }
        }

        @Override
        public Claim claim(String key, Claimant claimant, Miss awaited) {
            synchronized (InMemoryComputeServer.this) {
                call("claim");
                Value value = liveValue(key);
                if (value != null && claimant.refresh()
                        && clock.nanoTime() - value.writtenNanos() >= claimant.refreshAfter().toNanos()) {
                    value = null; // due: the refresh recomputes it
                }
                if (value != null) {
                    return new Claim.Hit(value.value());
                }
                if (awaited != null) {
                    Record old = live(invalidated, key);
                    if (old != null && old.miss.equals(awaited.id())) {
                        return old.computing ? waitFor(old) : done(old);
                    }
                }
                Record current = live(misses, key);
                if (current != null) {
                    if (current.computing) {
                        return waitFor(current);
                    }
                    if (awaited != null && current.miss.equals(awaited.id())) {
                        if (current.outcome != Notice.Outcome.VALUE) {
                            return done(current);
                        }
                        if (current.value != null) { // its short-lived value expired before this waiter read it
                            return new Claim.Done(Notice.Outcome.UNSTORED, current.value, null, null);
                        }
                    }
                } else if (awaited != null) {
                    return start(key, claimant, awaited.id(), awaited.turn() + 1, awaited.hint(), awaited.ttlMillis());
                }
                return start(key, claimant, claimant.newMiss(), 0, claimant.hint(), millis(claimant.ttl(), 0));
            }
        }

        @Override
        public Entry entry(String key) {
            synchronized (InMemoryComputeServer.this) {
                call("entry");
                Long backOff = backOffs.get(key);
                boolean backingOff = backOff != null && !expired(backOff);
                Value value = liveValue(key);
                if (value != null) {
                    long age = TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - value.writtenNanos());
                    return new Entry(value.value(), age, false, backingOff);
                }
                Value stale = staleValue(key);
                return stale == null ? null : new Entry(stale.value(), 0L, true, backingOff);
            }
        }

        @Override
        public boolean backOff(String key, Duration backOff) {
            synchronized (InMemoryComputeServer.this) {
                call("backOff");
                Long running = backOffs.get(key);
                if (running != null && !expired(running)) {
                    return false;
                }
                backOffs.put(key, expiresAfter(millis(backOff, 1)));
                return true;
            }
        }

        @Override
        public boolean complete(String key, Ticket ticket, Completion completion) {
            byte[] value = completion.value();
            synchronized (InMemoryComputeServer.this) {
                call("complete");
                Record current = live(misses, key);
                if (current != null && current.miss.equals(ticket.miss()) && current.computing) {
                    long ttlMillis = completion.ttl() == null ? current.ttlMillis : millis(completion.ttl(), 0);
                    if (value != null) {
                        long expires = expiresAfter(ttlMillis);
                        Duration staleIfError = completion.fresh() ? completion.staleIfError() : Duration.ZERO;
                        long stale = expires == NEVER || staleIfError.isZero() ? expires
                                : expires + staleIfError.toNanos();
                        values.put(key, new Value(value, expires, clock.nanoTime(), stale));
                        backOffs.remove(key);
                    }
                    settle(current, value == null ? Notice.Outcome.NULL : Notice.Outcome.VALUE);
                    current.value = ttlMillis > 0 && ttlMillis < DONE_GRACE.toMillis() ? value : null;
                    publish(completion.notice());
                    return true;
                }
                Record old = live(invalidated, key);
                if (old != null && old.miss.equals(ticket.miss()) && old.computing) {
                    settle(old, value == null ? Notice.Outcome.NULL : Notice.Outcome.UNSTORED);
                    old.value = value;
                    publish(completion.unstoredNotice());
                    return true;
                }
                return false;
            }
        }

        @Override
        public boolean fail(String key, Ticket ticket, String className, String message, String notice) {
            synchronized (InMemoryComputeServer.this) {
                call("fail");
                Record record = live(misses, key);
                if (record == null || !record.miss.equals(ticket.miss())) {
                    record = live(invalidated, key);
                }
                if (record == null || !record.miss.equals(ticket.miss()) || !record.computer.equals(ticket.computer())
                        || !record.computing) {
                    return false;
                }
                settle(record, Notice.Outcome.FAILED);
                record.className = className;
                record.message = message;
                publish(notice);
                return true;
            }
        }

        @Override
        public void subscribe(Listener listener) {
            this.listener = listener;
            this.notifier = Executors.newSingleThreadExecutor(runnable -> {
                Thread thread = new Thread(runnable, "in-memory-compute-notices");
                thread.setDaemon(true);
                return thread;
            });
            subscribed.add(this);
        }

        @Override
        public void close() {
            subscribed.remove(this);
            ExecutorService running = notifier;
            if (running != null) {
                running.shutdown();
            }
        }

        void deliver(String notice) {
            try {
                notifier.execute(() -> listener.noticed(notice));
            } catch (RejectedExecutionException closed) {
                // the node closed meanwhile: it hears nothing more
            }
        }

        private Claim waitFor(Record record) {
            return new Claim.Wait(record.asMiss(), remainingMillis(record), record.description, record.at);
        }

        private Claim start(String key, Claimant claimant, String miss, int turn, String hint, long ttlMillis) {
            Record record = new Record(miss, turn, claimant, clock.instant(), hint, ttlMillis,
                    expiresAfter(millis(claimant.computeTimeout(), 1)));
            misses.put(key, record);
            return new Claim.Compute(record.asMiss(), new Ticket(miss, turn, claimant.computer()));
        }

        private void settle(Record record, Notice.Outcome outcome) {
            record.computing = false;
            record.outcome = outcome;
            record.expiresNanos = expiresAfter(DONE_GRACE.toMillis());
        }
    }
}
