package dev.locks.internal;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.LocksObserver.AcquireResult;
import dev.locks.LocksObserver.Remover;
import dev.locks.LocksObserver.StaleReason;
import dev.locks.spi.RemoteLockStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The lock algorithm over a {@link LockTable}: all-or-nothing attempts in sorted key order, re-entry,
 * fencing tokens, waiting (woken on release, with the retry interval as the fallback), retries and wait
 * time, stale-lock cleanup on demand and by sweeps, and the watchdog. Not an API: backends wrap it.
 *
 * <p>With a {@link RemoteLockStore} (a distributed backend), the table holds this node's locks: a lease first
 * takes its keys in the table (threads of one node contend in memory; re-entry costs no round trip), then
 * takes the new ones in the store in one round trip, whose fencing token it gets. Releases, renewals and the
 * removal of a dead owner's locks go to the store too; waiters for keys held on other nodes are woken by
 * the store's release notifications.
 */
public final class LockEngine implements AutoCloseable {

    /**
     * How an engine is set up.
     *
     * @param backend the backend's short name, for operations
     * @param defaults the options of {@code acquire(keys)}
     * @param cleanupInterval the period of the engine's own sweep; zero for none (the starter schedules its own)
     * @param batchSize how many locks a sweep examines per batch
     * @param watchdog whether to renew live owners' locks
     * @param clock the time source
     * @param observer the events' receiver
     * @param keyLimits how many keys an acquire takes at most, and how long each may be
     */
    public record Settings(String backend, AcquireOptions defaults, Duration cleanupInterval, int batchSize,
            boolean watchdog, LocksClock clock, LocksObserver observer, Keys.Limits keyLimits) {

        /** With the {@linkplain Keys.Limits#DEFAULT default key limits}. */
        public Settings(String backend, AcquireOptions defaults, Duration cleanupInterval, int batchSize,
                boolean watchdog, LocksClock clock, LocksObserver observer) {
            this(backend, defaults, cleanupInterval, batchSize, watchdog, clock, observer, Keys.Limits.DEFAULT);
        }

        public Settings {
            Objects.requireNonNull(backend, "backend");
            Objects.requireNonNull(keyLimits, "keyLimits");
            Objects.requireNonNull(defaults, "defaultOptions");
            Objects.requireNonNull(clock, "clock");
            if (cleanupInterval == null || cleanupInterval.isNegative()) {
                throw new IllegalArgumentException(
                        "cleanupInterval must be a duration >= 0 (0 = no periodic sweep), was " + cleanupInterval);
            }
            if (batchSize <= 0) {
                throw new IllegalArgumentException("cleanupBatchSize must be > 0, was " + batchSize);
            }
            observer = GuardedObserver.guard(observer);
        }
    }

    private final Settings settings;
    private final LocksClock clock;
    private final LocksObserver observer;
    private final boolean observing;
    private final WaitQueues queues;
    private final LockTable table;
    private final FencingTokens tokens = new FencingTokens();
    private final Maintenance maintenance;
    private final Watchdog watchdog;
    private final RemoteLocks remote;
    /** One reading of both clocks, so that every timestamp of a lock is the same instant each time it is shown. */
    private final long originNanos;
    private final Instant origin;
    private volatile boolean closed;
    private final AtomicBoolean keeping = new AtomicBoolean();

    /** An engine whose table is the whole truth: the in-memory backend. */
    public LockEngine(Settings settings) {
        this(settings, null);
    }

    /** An engine in front of a shared store, for a distributed backend; {@code store} may be null. */
    public LockEngine(Settings settings, RemoteLockStore store) {
        this.settings = settings;
        this.clock = settings.clock();
        this.originNanos = clock.nanoTime();
        this.origin = clock.instant();
        this.observer = settings.observer();
        this.observing = observer != LocksObserver.NONE;
        this.queues = new WaitQueues(store == null);
        this.table = new LockTable(this::staleRemoved, queues, store == null || store.infiniteLeaseMillis() <= 0
                ? Long.MAX_VALUE : store.infiniteLeaseMillis() * 1_000_000L);
        this.maintenance = new Maintenance("locks-" + settings.backend() + "-maintenance");
        this.remote = store == null ? null : new RemoteLocks(store, clock, maintenance, queues);
        if (!settings.cleanupInterval().isZero()) {
            maintenance.every(settings.cleanupInterval(), this::sweep);
        }
        if (settings.watchdog()) {
            watchdog = new Watchdog(table, clock, maintenance, this::renew, settings.batchSize(),
                    timeoutNanos(settings.defaults()));
            watchdog.start();
        } else {
            watchdog = null;
        }
    }

    /**
     * With a store that holds infinite lock timeouts under a lease, starts renewing them (once, on the first
     * acquire that asks for one), every third of the lease.
     */
    private void keepIfInfinite(long timeoutNanos) {
        if (timeoutNanos == Long.MAX_VALUE && remote != null && remote.infiniteLeaseMillis() > 0
                && keeping.compareAndSet(false, true)) {
            maintenance.every(Duration.ofMillis(Math.max(1, remote.infiniteLeaseMillis() / 3)), this::keepInfinite);
        }
    }

    public AcquireOptions defaultOptions() {
        return settings.defaults();
    }

    public String backend() {
        return settings.backend();
    }

    LocksClock clock() {
        return clock;
    }

    /** The wall-clock time of a reading of the clock's nanoseconds: stable, however often it is asked. */
    Instant toInstant(long nanos) {
        return origin.plusNanos(nanos - originNanos);
    }

    /** See {@link dev.locks.LockRegistry#acquire(Collection, AcquireOptions)}. */
    public Lease acquire(Collection<String> keys, AcquireOptions options) {
        Objects.requireNonNull(options, "options");
        String solo = soloKey(keys);
        String[] sorted = solo == null ? Keys.normalize(keys, settings.keyLimits()) : null;
        ensureOpen();
        long timeoutNanos = timeoutNanos(options);
        if (watchdog != null) {
            watchdog.cover(timeoutNanos);
        }
        keepIfInfinite(timeoutNanos);
        long start = clock.nanoTime();
        // with a store, a caller that may wait takes its ticket at once, so that its first attempt already
        // queues it there (and a release tells its node); in memory it costs nothing until it waits
        Waiter waiter = remote != null && options.allowsRetryAfter(0)
                ? queues.newWaiter(solo == null ? sorted : new String[] {solo}) : null;
        try {
            for (int attempt = 0; ; attempt++) {
                int seen = waiter == null ? 0 : waiter.signals();
                Object outcome = attempt(solo, sorted, attempt == 0 ? start : clock.nanoTime(), timeoutNanos, waiter);
                if (outcome instanceof Lease lease) {
                    observe(AcquireResult.ACQUIRED, start);
                    return lease;
                }
                Blocked blocked = (Blocked) outcome;
                long pause = Retries.pauseNanos(options, attempt, clock.nanoTime() - start);
                if (pause < 0) {
                    throw Retries.timeout(solo == null ? sorted : new String[] {solo}, attempt + 1,
                            Duration.ofNanos(clock.nanoTime() - start), options, blocked(blocked.by()));
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw Retries.cancelled(solo == null ? sorted : new String[] {solo}, attempt + 1,
                            Duration.ofNanos(clock.nanoTime() - start));
                }
                if (waiter == null) {
                    waiter = queues.newWaiter(solo == null ? sorted : new String[] {solo});
                }
                enlist(waiter, blocked);
                if (pause == 0 || blocked.by().released()) {
                    continue; // released meanwhile: that is the early wake-up
                }
                await(waiter, seen, pause); // an interrupt ends it: the check above then throws
            }
        } catch (LockTimeoutException e) {
            observe(AcquireResult.TIMEOUT, start);
            throw e;
        } catch (RuntimeException | Error e) {
            observe(AcquireResult.ERROR, start);
            throw e;
        } finally {
            if (waiter != null) {
                leave(waiter);
            }
        }
    }

    /**
     * Puts a waiter in the queues of its keys as {@link WaitQueues} describes: when fair, those up to the one
     * in its way; else that one, and with a remote store its ticket there too (where the store ordered it
     * already when the store was in its way, and now when this node's table was).
     */
    private void enlist(Waiter waiter, Blocked blocked) {
        boolean local = blocked.by() instanceof LockEntry;
        queues.enlist(waiter, queues.isFair() ? 0 : blocked.index(), blocked.index() + 1, local);
        if (remote != null && local) {
            remote.enqueue(waiter, List.of(waiter.keys).subList(0, blocked.index() + 1));
        }
    }

    /**
     * Parks until signalled, interrupted or the pause ends, refreshing a ticket in the store meanwhile. The
     * interrupt status is left set: the acquire loop sees it and stops waiting.
     */
    private void await(Waiter waiter, int seen, long pauseNanos) {
        if (remote == null) {
            waiter.await(seen, pauseNanos);
            return;
        }
        long deadline = System.nanoTime() + pauseNanos;
        for (;;) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || waiter.signals() != seen) {
                return;
            }
            if (waiter.await(seen, Math.min(left, RemoteLocks.TICKET_REFRESH_NANOS))) {
                return;
            }
            remote.refresh(waiter);
        }
    }

    /** A waiter got its keys or gave up: it leaves every queue, here and in the store; nothing stays behind. */
    private void leave(Waiter waiter) {
        queues.leave(waiter);
        if (remote != null) {
            remote.dequeue(waiter);
        }
    }

    /** See {@link dev.locks.LockRegistry#tryAcquire(Collection)}. */
    public Optional<Lease> tryAcquire(Collection<String> keys) {
        String solo = soloKey(keys);
        String[] sorted = solo == null ? Keys.normalize(keys, settings.keyLimits()) : null;
        ensureOpen();
        long timeoutNanos = timeoutNanos(settings.defaults());
        if (watchdog != null) {
            watchdog.cover(timeoutNanos);
        }
        keepIfInfinite(timeoutNanos);
        long start = clock.nanoTime();
        Object outcome = attempt(solo, sorted, start, timeoutNanos, null);
        if (outcome instanceof Lease lease) {
            observe(AcquireResult.ACQUIRED, start);
            return Optional.of(lease);
        }
        observe(AcquireResult.TIMEOUT, start);
        return Optional.empty();
    }

    /** See {@link dev.locks.LockRegistry#withLocks(Collection, Supplier)}. */
    public <T> T withLocks(Collection<String> keys, Supplier<T> action) {
        Objects.requireNonNull(action, "action");
        try (Lease lease = acquire(keys, settings.defaults()); Lease.CurrentScope scope = Lease.makeCurrent(lease)) {
            return action.get();
        }
    }

    /**
     * What stopped an attempt (a {@link SoloLease} is a lease and a blocker both: this tells them apart), at
     * which of its sorted keys.
     */
    private record Blocked(Blocker by, int index) {
    }

    /**
     * The one key of an acquire that can take the one-object path ({@link SoloLease}), validated; else
     * {@code null}. That path is the in-memory backend's: with a remote store every lease needs an owner there.
     */
    private String soloKey(Collection<String> keys) {
        if (remote != null || keys == null || keys.size() != 1) {
            return null;
        }
        return Keys.requireValid(keys instanceof List<String> list ? list.get(0) : keys.iterator().next(), 0,
                settings.keyLimits());
    }

    /**
     * One attempt, on the one-key path or over sorted keys: the lease, or {@link Blocked}. {@code waiter} is the
     * caller's place in the wait queues, {@code null} before it has waited.
     */
    private Object attempt(String solo, String[] sorted, long nowNanos, long timeoutNanos, Waiter waiter) {
        return solo != null ? attemptSolo(solo, nowNanos, timeoutNanos, waiter)
                : attempt(sorted, nowNanos, timeoutNanos, waiter);
    }

    /**
     * When fair (this JVM is the whole truth), whether an older waiter than the caller waits for {@code key},
     * which the caller does not hold already (re-entry never queues): it is theirs first. One read of an empty
     * map when nobody waits.
     */
    private Blocker olderWaiter(String key, Waiter waiter, Thread caller, long nowNanos) {
        if (!queues.isFair() || queues.isEmpty()
                || !queues.olderWaits(key, waiter == null ? Long.MAX_VALUE : waiter.order)) {
            return null;
        }
        LockEntry held = table.get(key);
        if (held != null && held.isOwnedBy(caller) && !held.isExpired(nowNanos)) {
            return null;
        }
        return queues.olderWaiter(key, waiter);
    }

    /** Takes one key as a {@link SoloLease}; re-entry goes through a {@link TableLease} like any other. */
    private Object attemptSolo(String key, long nowNanos, long timeoutNanos, Waiter waiter) {
        Thread caller = Thread.currentThread();
        Blocker older = olderWaiter(key, waiter, caller, nowNanos);
        if (older != null) {
            return new Blocked(older, 0);
        }
        SoloLease mine = new SoloLease(this, key, caller, nowNanos, timeoutNanos, table.leaseNanos(timeoutNanos));
        LockEntry taken = table.takeSolo(mine, caller, nowNanos);
        if (taken == mine) {
            mine.token(tokens.issue(key));
            return mine;
        }
        if (taken == LockTable.REENTRY) {
            return attempt(new String[] {key}, nowNanos, timeoutNanos, waiter);
        }
        return new Blocked(taken, 0);
    }

    /**
     * One all-or-nothing pass over the sorted keys: in the table, then (the new ones) in the remote store.
     *
     * @return the lease, or {@link Blocked} by what stopped the pass (everything taken is rolled back)
     */
    private Object attempt(String[] keys, long nowNanos, long timeoutNanos, Waiter waiter) {
        Thread caller = Thread.currentThread();
        TableLease lease = new TableLease(this, keys, nowNanos, remote == null ? null : remote.newOwnerId());
        for (int i = 0; i < keys.length; i++) {
            Blocker blocker = olderWaiter(keys[i], waiter, caller, nowNanos);
            if (blocker == null) {
                blocker = table.take(keys[i], caller, lease, i, nowNanos, timeoutNanos);
            }
            if (blocker != null) {
                rollback(lease, i, waiter);
                return new Blocked(blocker, i);
            }
        }
        if (remote == null) {
            lease.token = tokenFor(lease);
            return lease;
        }
        Blocker blocker;
        try {
            blocker = remote.take(lease, timeoutNanos, waiter);
        } catch (RuntimeException | Error e) {
            rollback(lease, keys.length, waiter);
            throw e;
        }
        if (blocker != null) {
            rollback(lease, keys.length, waiter);
            return new Blocked(blocker, indexOf(keys, blocker.key()));
        }
        if (lease.token == 0) {
            lease.token = highestToken(lease); // only re-entered keys: no round trip
        }
        return lease;
    }

    /** Drops what an attempt took; the waiters it made wait meanwhile are woken, never the caller itself. */
    private void rollback(TableLease lease, int taken, Waiter self) {
        for (int i = 0; i < taken; i++) {
            table.drop(lease.entries[i], self);
        }
    }

    private static int indexOf(String[] sorted, String key) {
        int index = Arrays.binarySearch(sorted, key);
        return Math.max(index, 0);
    }

    private static long highestToken(TableLease lease) {
        long highest = 0;
        for (LockEntry entry : lease.entries) {
            highest = Math.max(highest, entry.token());
        }
        return highest;
    }

    /**
     * A new token when the lease took any key; when it only re-entered keys, the highest token of the
     * leases holding them.
     */
    private long tokenFor(TableLease lease) {
        boolean tookAny = false;
        long highest = 0;
        for (LockEntry entry : lease.entries) {
            if (entry.createdBy(lease)) {
                tookAny = true;
            } else {
                highest = Math.max(highest, entry.token());
            }
        }
        if (!tookAny) {
            return highest;
        }
        long token = tokens.issue(lease.keys);
        for (LockEntry entry : lease.entries) {
            if (entry.createdBy(lease)) {
                entry.token(token);
            }
        }
        return token;
    }

    /**
     * Releases what {@code lease} holds; called once per lease, from any thread. With a remote store, the
     * keys whose last hold went are released there first (one round trip), then in the table, so that a
     * local waiter woken by the table finds the key free in the store too.
     */
    void release(TableLease lease) {
        if (remote == null) {
            for (LockEntry entry : lease.entries) {
                if (entry.isLost()) {
                    observer.onLeaseLost(entry.key());
                }
                table.drop(entry);
            }
            return;
        }
        List<LockEntry> last = new ArrayList<>(lease.entries.length);
        for (LockEntry entry : lease.entries) {
            if (entry.isLost()) {
                observer.onLeaseLost(entry.key());
            }
            if (entry.dropHold() == 0) {
                last.add(entry);
            }
        }
        List<LockEntry> stillOurs = last.stream().filter(entry -> !entry.isLost()).toList();
        Set<String> lost = remote.release(stillOurs);
        for (LockEntry entry : stillOurs) {
            if (lost.contains(entry.key())) {
                observer.onLeaseLost(entry.key());
            }
        }
        last.forEach(table::removeReleased);
    }

    /** Releases a one-key lease (once; later calls change nothing), from any thread. */
    void release(SoloLease lease) {
        int left = lease.closeSelf();
        if (left < 0) {
            return;
        }
        if (lease.isLost()) {
            observer.onLeaseLost(lease.key());
        }
        if (left == 0) {
            table.removeReleased(lease);
        }
    }

    /** A stale entry left the table: count it, and free it in the store when it was taken there. */
    private void staleRemoved(LockEntry entry, StaleReason reason, Remover by) {
        observer.onStaleRemoved(reason, by);
        if (remote != null && by == Remover.ACQUIRE && entry.token() != 0) {
            remote.release(List.of(entry));
        }
    }

    /**
     * The watchdog's renewal of a batch: in the table, which is the whole truth in memory; with a store, in
     * the store first, and each lease moves forward only as far as the store confirmed it.
     */
    private void renew(List<LockEntry> batch, long selectedNanos) {
        if (remote != null) {
            remote.renew(batch, table);
            return;
        }
        long now = clock.nanoTime();
        for (LockEntry entry : batch) {
            table.renew(entry, now, now);
        }
    }

    /**
     * Renews in the store the locks of infinite lock timeout that live owners hold, under the store's lease,
     * every third of it whether or not the watchdog is on; a dead owner's lock is left to expire after the lease.
     * Their leases too are only as long as the store confirmed them (the table holds them under the store's
     * lease): a lock whose store lease ran out unconfirmed is no longer held, since another node may take it.
     */
    private void keepInfinite() {
        List<LockEntry> batch = new ArrayList<>();
        for (LockEntry entry : table.entries()) {
            if (entry.timeoutNanos == Long.MAX_VALUE && entry.token() != 0 && !entry.isLost()
                    && (entry.isDetached() || entry.acquirer.isAlive())) {
                batch.add(entry);
                if (batch.size() == settings.batchSize()) {
                    remote.renew(batch, table);
                    batch = new ArrayList<>();
                }
            }
        }
        if (!batch.isEmpty()) {
            remote.renew(batch, table);
        }
    }

    /** How many keys have waiters in this JVM (tests: a waiter that gave up leaves nothing behind). */
    int waitedKeys() {
        return queues.size();
    }

    /** Who holds the key that blocked an acquire, as a sentence for its timeout. */
    private String blocked(Blocker blocker) {
        String holder;
        String older = "'" + blocker.key() + "' goes first to a caller that has waited for it longer.";
        if (blocker instanceof LockEntry entry) {
            holder = entry.ownerDescription() + " since " + toInstant(entry.acquiredNanos);
        } else if (remote == null) {
            return older;
        } else {
            try {
                holder = heldLock(blocker.key()).map(lock -> lock.owner() + " since " + lock.acquiredAt())
                        .orElse(null);
            } catch (RuntimeException e) {
                holder = "another node";
            }
            if (holder == null) {
                return older;
            }
        }
        return "'" + blocker.key() + "' is held by " + holder + ".";
    }

    private void observe(AcquireResult result, long start) {
        if (observing) {
            observer.onAcquire(result, clock.nanoTime() - start);
        }
    }

    /**
     * See {@link dev.locks.LockRegistry#heldLocks()}: sorted by key; keys being taken are left out. With a
     * remote store, every node's locks, read from the store in batches.
     */
    public List<HeldLock> heldLocks() {
        return heldLocks(Integer.MAX_VALUE);
    }

    /** See {@link dev.locks.LockRegistry#heldLocks(int)}: stops reading once it has {@code limit} locks. */
    public List<HeldLock> heldLocks(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, was " + limit);
        }
        if (remote != null) {
            return remote.heldLocks(settings.batchSize(), limit, table);
        }
        Snapshot snapshot = new Snapshot();
        List<HeldLock> held = new ArrayList<>(Math.min(table.size(), limit));
        for (Iterator<LockEntry> entries = table.entries().iterator(); held.size() < limit && entries.hasNext(); ) {
            HeldLock lock = snapshot.of(entries.next());
            if (lock != null) {
                held.add(lock);
            }
        }
        held.sort(Comparator.comparing(HeldLock::key));
        return held;
    }

    public Optional<HeldLock> heldLock(String key) {
        Keys.requireValid(key, 0);
        if (remote != null) {
            return remote.heldLock(key, table);
        }
        LockEntry entry = table.get(key);
        return entry == null ? Optional.empty() : Optional.ofNullable(new Snapshot().of(entry));
    }

    /** How many keys this node holds (with a remote store, other nodes' locks are not counted). */
    public int heldCount() {
        return table.size();
    }

    /** See {@link dev.locks.LockRegistry#sweep()}; a closed engine has nothing left to sweep. */
    public int sweep() {
        if (closed) {
            return 0;
        }
        long start = clock.nanoTime();
        int removed = 0;
        List<LockEntry> batch = new ArrayList<>(settings.batchSize());
        for (LockEntry entry : table.entries()) {
            batch.add(entry);
            if (batch.size() == settings.batchSize()) {
                removed += sweep(batch);
                batch.clear();
            }
        }
        removed += sweep(batch);
        observer.onSweep(removed, clock.nanoTime() - start);
        return removed;
    }

    private int sweep(List<LockEntry> batch) {
        long now = clock.nanoTime();
        List<LockEntry> removed = new ArrayList<>();
        for (LockEntry entry : batch) {
            if (entry.staleReason(now) != null && table.removeIfStale(entry, now, Remover.SWEEP)) {
                removed.add(entry);
            }
        }
        if (remote != null) {
            remote.release(removed.stream().filter(entry -> entry.token() != 0).toList());
        }
        return removed.size();
    }

    /** See {@link dev.locks.LockRegistry#forceRelease(String)}: with a remote store, on whatever node holds it. */
    public boolean forceRelease(String key) {
        boolean here = table.forceRemove(Keys.requireValid(key, 0));
        return remote == null ? here : remote.forceRelease(key) || here;
    }

    /** Runs one watchdog pass now (tests; the watchdog runs by itself when enabled). */
    void renewNow() {
        if (watchdog != null) {
            watchdog.renewLiveLocks();
        }
    }

    /**
     * Stops the sweep and the watchdog; later acquires fail. Held leases can still be closed. With a remote
     * store, the watchdog stops first (a renewal after the release would resurrect a lock), then this node's
     * locks are released in the store, so that other nodes need not wait for them to expire.
     */
    @Override
    public void close() {
        closed = true;
        maintenance.close(); // pending release retries end too: the node's remaining locks go below
        if (remote != null) {
            List<LockEntry> held = new ArrayList<>();
            for (LockEntry entry : table.entries()) {
                if (entry.token() != 0 && !entry.isLost() && table.forceRemove(entry.key())) {
                    held.add(entry);
                    if (held.size() == settings.batchSize()) {
                        remote.release(held);
                        held = new ArrayList<>();
                    }
                }
            }
            remote.release(held);
            remote.close();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("this " + settings.backend() + " lock registry is closed");
        }
    }

    private static long timeoutNanos(AcquireOptions options) {
        Optional<Duration> timeout = options.lockTimeout();
        return timeout.isPresent() ? timeout.get().toNanos() : Long.MAX_VALUE;
    }

    /** Converts entries to {@link HeldLock}s against one reading of the clock. */
    private final class Snapshot {
        private final long nowNanos = clock.nanoTime();

        HeldLock of(LockEntry entry) {
            long token = entry.token();
            if (token == 0) {
                return null;
            }
            long expires = entry.visibleExpiresNanos();
            return new HeldLock(entry.key(), entry.ownerDescription(), token, toInstant(entry.acquiredNanos),
                    expires == Long.MAX_VALUE ? Instant.MAX : toInstant(expires),
                    entry.isLost() || entry.staleReason(nowNanos) != null);
        }
    }
}
