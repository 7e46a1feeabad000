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
import java.util.Comparator;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The lock algorithm over a {@link LockTable}: all-or-nothing attempts in sorted key order, re-entry,
 * waiting (woken on release, with the retry interval as the fallback), retries and wait time, and when stale
 * locks are removed and live ones renewed. Not an API: backends reach it through
 * {@link dev.locks.support.AbstractLockRegistry}.
 *
 * <p>What stands behind the table is a {@link Backing}: nothing in memory ({@link MemoryBacking}), or a
 * {@link RemoteLockStore} for a distributed backend ({@link StoreBacking}). Fencing tokens are decided by
 * {@link LeaseTokens}, listings by {@link Listing} (or the store), sweeps by {@link Sweeper}.
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
     * @param application the application's name, which the owners of a distributed backend's locks name beside
     *        their host (SPEC section 10); {@code null} for none
     * @param coarseClock whether an engine in memory on {@link LocksClock#system()} may stamp uncontended exclusive
     *        acquires with the JVM's {@link CoarseClock} instead of reading the clock (ignored otherwise)
     */
    public record Settings(String backend, AcquireOptions defaults, Duration cleanupInterval, int batchSize,
            boolean watchdog, LocksClock clock, LocksObserver observer, Keys.Limits keyLimits, String application,
            boolean coarseClock) {

        /** Every acquire reading the clock. */
        public Settings(String backend, AcquireOptions defaults, Duration cleanupInterval, int batchSize,
                boolean watchdog, LocksClock clock, LocksObserver observer, Keys.Limits keyLimits, String application) {
            this(backend, defaults, cleanupInterval, batchSize, watchdog, clock, observer, keyLimits, application, false);
        }

        /** Without an application name. */
        public Settings(String backend, AcquireOptions defaults, Duration cleanupInterval, int batchSize,
                boolean watchdog, LocksClock clock, LocksObserver observer, Keys.Limits keyLimits) {
            this(backend, defaults, cleanupInterval, batchSize, watchdog, clock, observer, keyLimits, null);
        }

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
    /** The lock timeout of {@link Settings#defaults()}, in nanoseconds ({@link Nanos#NEVER}: infinite). */
    private final long defaultTimeoutNanos;
    private final LocksObserver observer;
    private final boolean observing;
    private final WaitQueues queues;
    private final LockTable table;
    /** The keys held shared or by permits (in memory only). */
    private final SharedHolds holds;
    private final LeaseTokens tokens = new LeaseTokens();
    private final Maintenance maintenance;
    private final Watchdog watchdog;
    private final Listing listing;
    private final Backing backing;
    private final Sweeper sweeper;
    /** What this engine's leases may call on it: one for all of them, made with the engine. */
    final LeaseHost leaseHost = new Host();
    /** Whether the shared leases of infinite lock timeout are kept in the store (once the first asks for it). */
    private final AtomicBoolean keepingShared = new AtomicBoolean();
    /** The threads of asynchronous acquires, from the first one on; {@code null} before. */
    private AsyncWaits waits;
    private volatile boolean closed;
    /**
     * The JVM's coarse clock, when this engine stamps uncontended exclusive acquires with it ({@link #stampsCoarsely});
     * {@code null} when every acquire reads {@link #clock}.
     */
    private final CoarseClock coarse;

    /** An engine whose table is the whole truth: the in-memory backend. */
    public LockEngine(Settings settings) {
        this(settings, null);
    }

    /** An engine in front of a shared store, for a distributed backend; {@code store} may be null. */
    public LockEngine(Settings settings, RemoteLockStore store) {
        this.settings = settings;
        this.clock = settings.clock();
        this.observer = settings.observer();
        this.observing = observer != LocksObserver.NONE;
        this.defaultTimeoutNanos = timeoutNanos(settings.defaults());
        this.queues = new WaitQueues(store == null);
        this.coarse = store == null && settings.coarseClock() && clock == LocksClock.system() ? CoarseClock.SHARED
                : null;
        this.table = new LockTable(this::staleRemoved, queues, store == null || store.infiniteLeaseMillis() <= 0
                ? Nanos.NEVER : Nanos.ofMillis(store.infiniteLeaseMillis()), store != null, coarse);
        this.holds = new SharedHolds(queues, this::staleRemoved);
        this.listing = new Listing(table, clock);
        this.maintenance = new Maintenance("locks-" + settings.backend() + "-maintenance");
        this.backing = store == null ? new MemoryBacking(table, clock, observer, listing, maintenance)
                : new StoreBacking(store, queues, table, clock, observer, maintenance, settings.batchSize(),
                        settings.application());
        this.sweeper = new Sweeper(table, clock, observer, settings.batchSize(), backing);
        if (!settings.cleanupInterval().isZero()) {
            maintenance.every(settings.cleanupInterval(), this::sweep);
        }
        if (settings.watchdog()) {
            watchdog = new Watchdog(table, clock, maintenance, (batch, selectedNanos) -> backing.renew(batch),
                    settings.batchSize(), timeoutNanos(settings.defaults()), now -> renewShared(now, false));
            watchdog.start();
        } else {
            watchdog = null;
        }
        if (coarse != null) {
            coarse.use();
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
        return listing.toInstant(nanos);
    }

    /** See {@link dev.locks.LockRegistry#acquire(Collection, AcquireOptions)}. */
    public Lease acquire(Collection<String> keys, AcquireOptions options) {
        Objects.requireNonNull(options, "options");
        long holdNanos = holdNanos(options);
        int shape = shapeOf(options);
        String solo = soloKey(keys, holdNanos, shape);
        String[] sorted = solo == null ? Keys.normalize(keys, settings.keyLimits()) : null;
        long timeoutNanos = opening(options, holdNanos);
        boolean stamped = stampsCoarsely(holdNanos, shape);
        long start = stamped ? coarse.stamp() : clock.nanoTime();
        Waiter waiter = backing.queuesFirstAttempt(options) ? newWaiter(keysOf(solo, sorted), options, start) : null;
        try {
            refuseUpgrade(solo, sorted, shape, start);
            for (int attempt = 0; ; attempt++) {
                int seen = waiter == null ? 0 : waiter.signals();
                long now = attempt == 0 ? start : clock.nanoTime();
                Attempt outcome = attempt(solo, sorted, now, timeoutNanos, holdNanos, shape, waiter,
                        Thread.currentThread(), true, Retries.storeWaitNanos(options, attempt, now - start));
                if (!(outcome instanceof Attempt.Blocked blocked)) {
                    if (waiter != null) {
                        waiter.took = true;
                    }
                    observe(AcquireResult.ACQUIRED, start);
                    return (Lease) outcome;
                }
                if (stamped && attempt == 0) {
                    start = clock.nanoTime(); // the wait counts from a precise reading, so that it never ends early
                }
                long pause = Retries.pauseNanos(options, attempt, clock.nanoTime() - start);
                if (pause < 0) {
                    throw Retries.timeout(keysOf(solo, sorted), attempt + 1,
                            Duration.ofNanos(clock.nanoTime() - start), options, blocked(blocked.by()));
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw Retries.cancelled(keysOf(solo, sorted), attempt + 1,
                            Duration.ofNanos(clock.nanoTime() - start));
                }
                if (waiter == null) {
                    waiter = newWaiter(keysOf(solo, sorted), options, start);
                }
                enlist(waiter, blocked);
                if (pause == 0 || blocked.by().released()) {
                    continue; // released meanwhile: that is the early wake-up
                }
                backing.await(waiter, seen, pause); // an interrupt ends it: the check above then throws
            }
        } catch (LockTimeoutException e) {
            observe(AcquireResult.TIMEOUT, start);
            throw e;
        } catch (RuntimeException | Error e) {
            observe(AcquireResult.ERROR, start);
            throw e;
        } finally {
            if (waiter != null) {
                queues.leave(waiter);
                backing.left(waiter); // nothing stays behind, here or in a store
            }
        }
    }

    /** A waiter whose wait ends when {@code options}' wait time from {@code start} does, if it has one. */
    private Waiter newWaiter(String[] keys, AcquireOptions options, long start) {
        Waiter waiter = queues.newWaiter(keys);
        waiter.exclusive = shapeOf(options) == EXCLUSIVE;
        options.waitTime().ifPresent(waitTime -> waiter.waits(start, Nanos.of(waitTime)));
        return waiter;
    }

    /**
     * Checks that the engine is open and supports the options, and readies the watchdog and the backing for the
     * options' lock timeout, which it returns in nanoseconds.
     */
    private long opening(AcquireOptions options, long holdNanos) {
        ensureOpen();
        int shape = shapeOf(options);
        if (shape != EXCLUSIVE && !backing.holdsShared()) {
            throw new UnsupportedOperationException((options.isShared() ? "shared locks (AcquireOptions.shared())"
                    : "counted locks (AcquireOptions.withPermits(" + options.permits() + "))")
                    + " are not supported by the " + settings.backend() + " lock registry yet: its lock store holds"
                    + " one owner per key; take the key exclusive (the default options)");
        }
        long timeoutNanos = timeoutNanos(options);
        if (holdNanos != 0 && !backing.holdsAtLeast()) {
            throw new IllegalArgumentException("holdAtLeast is not supported by this " + settings.backend()
                    + " lock registry: its lock store cannot keep a closed lease's keys until then");
        }
        if (holdNanos != 0 && shape != EXCLUSIVE && backing.sharesHolds()) {
            throw new IllegalArgumentException("holdAtLeast with shared or counted locks is not supported by the "
                    + settings.backend() + " lock registry yet: take the key exclusive to hold it at least some time");
        }
        if (shape != EXCLUSIVE && timeoutNanos == Nanos.NEVER && backing.sharesHolds()
                && table.leaseNanos(timeoutNanos) != Nanos.NEVER && keepingShared.compareAndSet(false, true)) {
            // the store holds them under a lease of its own: renewed every third of it, watchdog or not
            maintenance.every(Duration.ofNanos(Math.max(1_000_000, table.leaseNanos(timeoutNanos) / 3)),
                    () -> renewShared(clock.nanoTime(), true));
        }
        if (watchdog != null) {
            watchdog.cover(timeoutNanos);
        }
        backing.covering(timeoutNanos);
        return timeoutNanos;
    }

    /**
     * The watchdog's (or, for infinite lock timeouts in a store, the keeper's: {@code infiniteOnly}) renewal of the
     * shared and counted leases that are due.
     */
    private void renewShared(long nowNanos, boolean infiniteOnly) {
        if (!holds.inUse()) {
            return;
        }
        if (!backing.sharesHolds()) {
            holds.renew(nowNanos);
            return;
        }
        List<SharedLease> due = holds.due(nowNanos, infiniteOnly);
        if (!due.isEmpty()) {
            backing.renewShared(due);
        }
    }

    /** How an acquire takes its keys: {@link #EXCLUSIVE}, {@link SharedHolds#SHARED}, or a number of permits. */
    private static int shapeOf(AcquireOptions options) {
        return options.isShared() ? SharedHolds.SHARED : options.permits() == 1 ? EXCLUSIVE : options.permits();
    }

    private static final int EXCLUSIVE = 0;

    /**
     * An exclusive acquire of a key that the calling thread holds shared is refused at once: two such threads
     * would wait for each other forever.
     */
    private void refuseUpgrade(String solo, String[] sorted, int shape, long nowNanos) {
        if (shape != EXCLUSIVE || !holds.inUse()) {
            return;
        }
        Thread caller = Thread.currentThread();
        for (String key : keysOf(solo, sorted)) {
            if (holds.holds(key, caller, true, nowNanos)) {
                throw new IllegalStateException("'" + key + "' is held shared by this thread (" + caller.getName()
                        + "), which now asks for it exclusive: an upgrade is refused, since two threads doing so would"
                        + " wait for each other forever; close the shared lease first, or take the key exclusive"
                        + " from the start");
            }
        }
    }

    private static String[] keysOf(String solo, String[] sorted) {
        return solo == null ? sorted : new String[] {solo};
    }

    /**
     * Puts a waiter in the queues of its keys as {@link WaitQueues} describes: when fair, those up to the one
     * in its way; else that one, and with a remote store its ticket there too (where the store ordered it
     * already when the store was in its way, and now when this node's table was). Of the asynchronous waiters
     * that this node's table holds up at a key, only the one that leads them gets a ticket now (the others get
     * theirs when they lead): so the node keeps its place across nodes, and ten thousand of them do not cost ten
     * thousand tickets to place and refresh.
     */
    void enlist(Waiter waiter, Attempt.Blocked blocked) {
        // a holder in this node's groups is local too: a writer kept out by this node's readers keeps its place in
        // the store meanwhile, so that other nodes' newer readers queue behind it
        // kept out by this node's older ticket, a thread waits as for the store: the table's releases wake every
        // thread that waits for the table, and a crowd behind one ticket would all wake at each of them (the older
        // ticket leaving wakes it instead); an asynchronous waiter as for the table, whose releases wake one of them,
        // and which it then meets first (its waiters would else change sides at every hand-off, and each change
        // costs the queue a walk to find its asynchronous lead again)
        boolean ownTicket = blocked.by() instanceof OwnTickets.OlderTicket;
        boolean local = blocked.by() instanceof LockEntry || blocked.by() instanceof SharedHolds.Held
                || blocked.by() instanceof WaitQueues.OlderWriter || (ownTicket && waiter.isAsync());
        queues.enlist(waiter, queues.isFair() ? 0 : blocked.index(), blocked.index() + 1, local);
        if (!waiter.isAsync() || queues.leadsAsync(blocked.by().key(), waiter)) {
            backing.enlisted(waiter, blocked.index(), local || ownTicket); // with a ticket of its own
        }
    }

    /**
     * See {@link dev.locks.LockRegistry#acquireAsync(Collection, AcquireOptions)}: never throws; bad keys or
     * options, or a closed engine, complete the future exceptionally before anything is locked. The first attempt
     * runs on the calling thread when it cannot block (in memory), else on the engine's pool ({@link AsyncWaits}).
     */
    public CompletableFuture<Lease> acquireAsync(Collection<String> keys, AcquireOptions options) {
        AsyncAcquire acquire;
        try {
            Objects.requireNonNull(options, "options");
            long holdNanos = holdNanos(options);
            String solo = soloKey(keys, holdNanos, shapeOf(options));
            String[] sorted = solo == null ? Keys.normalize(keys, settings.keyLimits()) : null;
            long timeoutNanos = opening(options, holdNanos);
            acquire = new AsyncAcquire(this, waits(), solo, sorted, options, timeoutNanos, clock.nanoTime());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return acquire.start(!backing.attemptsBlock());
    }

    /** The threads of asynchronous acquires, started by the first one. */
    private synchronized AsyncWaits waits() {
        ensureOpen();
        if (waits == null) {
            int cores = Runtime.getRuntime().availableProcessors();
            waits = new AsyncWaits("locks-" + settings.backend() + "-async",
                    backing.attemptsBlock() ? Math.min(16, Math.max(4, 2 * cores)) : Math.min(4, Math.max(2, cores)));
        }
        return waits;
    }

    /** What runs an asynchronous acquire's event with what the observer needs of the caller's thread. */
    Executor observerContext() {
        return observing ? observer.callerContext() : null;
    }

    /** Observes an acquire that ends on another thread than its caller's, in the caller's {@code context}. */
    void observe(Executor context, AcquireResult result, long start) {
        if (context != null) {
            long nanos = clock.nanoTime() - start;
            context.execute(() -> observer.onAcquire(result, nanos));
        }
    }

    /** One attempt of an asynchronous acquire asked for by {@code requester}: re-enters nothing, takes detached. */
    Attempt attemptAsync(String solo, String[] sorted, long nowNanos, long timeoutNanos, AcquireOptions options,
            int attempt, long elapsedNanos, Waiter waiter, Thread requester) {
        return attempt(solo, sorted, nowNanos, timeoutNanos, holdNanos(options), shapeOf(options), waiter, requester,
                false, Retries.storeWaitNanos(options, attempt, elapsedNanos));
    }

    /**
     * As {@link #newWaiter}: its calls to a store wait no longer than what is left of {@code options}' wait time, and
     * it knows whether it wants its keys exclusive.
     */
    Waiter newAsyncWaiter(String[] keys, Thread requester, AsyncAcquire acquire, AcquireOptions options, long start) {
        Waiter waiter = queues.newAsyncWaiter(keys, requester, acquire);
        options.waitTime().ifPresent(waitTime -> waiter.waits(start, Nanos.of(waitTime)));
        waiter.exclusive = shapeOf(options) == EXCLUSIVE;
        return waiter;
    }

    boolean queuesFirstAttempt(AcquireOptions options) {
        return backing.queuesFirstAttempt(options);
    }

    /** {@code waiter} got its keys or gave up: out of every queue, here and in the backing. */
    void leave(Waiter waiter) {
        queues.leave(waiter);
        backing.left(waiter);
    }

    /** How long {@code waiter} may pause before the backing needs it again ({@link Backing#waitSliceNanos}). */
    long waitSliceNanos(Waiter waiter) {
        return backing.waitSliceNanos(waiter);
    }

    void refreshWaiting(Waiter waiter) {
        backing.refreshWaiting(waiter);
    }

    /** How many asynchronous acquires are pending (tests: nothing left behind). */
    public synchronized int pendingAsync() {
        return waits == null ? 0 : waits.pending();
    }

    /** See {@link dev.locks.LockRegistry#tryAcquire(Collection)}. */
    public Optional<Lease> tryAcquire(Collection<String> keys) {
        return Optional.ofNullable(once(keys, settings.defaults(), false));
    }

    /** See {@link dev.locks.LockRegistry#tryAcquire(Collection, AcquireOptions)}: one attempt under these options. */
    public Optional<Lease> tryAcquire(Collection<String> keys, AcquireOptions options) {
        return Optional.ofNullable(once(keys, Objects.requireNonNull(options, "options"), false));
    }

    /**
     * One attempt under {@code options}' lock timeout that never waits, for asynchronous work: the lease, already
     * {@linkplain Lease#detach() detached}, when every key could be taken at once, else {@code null}, and nothing
     * held. Being detached, it re-enters no key the calling thread holds (such a key counts as held), as a lease
     * taken on another thread would not. Unlike {@link #tryAcquire(Collection)} an attempt that is blocked is not
     * observed as a timeout: the caller goes on to wait some other way (the starter's reactive {@code @Locked}
     * does so off the subscriber's thread), and that wait is observed.
     */
    public Lease attemptDetached(Collection<String> keys, AcquireOptions options) {
        Lease lease = once(keys, Objects.requireNonNull(options, "options"), true);
        if (lease != null) {
            lease.detach();
        }
        return lease;
    }

    /**
     * One attempt: the lease, or {@code null} when blocked (observed as a timeout unless {@code detached}: see
     * {@link #attemptDetached}); a {@code detached} attempt re-enters nothing.
     */
    private Lease once(Collection<String> keys, AcquireOptions options, boolean detached) {
        long holdNanos = holdNanos(options);
        int shape = shapeOf(options);
        String solo = soloKey(keys, holdNanos, shape);
        String[] sorted = solo == null ? Keys.normalize(keys, settings.keyLimits()) : null;
        long timeoutNanos = opening(options, holdNanos);
        long start = stampsCoarsely(holdNanos, shape) ? coarse.stamp() : clock.nanoTime();
        Attempt outcome;
        try {
            if (!detached) {
                refuseUpgrade(solo, sorted, shape, start);
            }
            outcome = attempt(solo, sorted, start, timeoutNanos, holdNanos, shape, null, Thread.currentThread(),
                    !detached, RemoteLockStore.ONE_ATTEMPT);
        } catch (IllegalStateException | IllegalArgumentException e) { // a refused upgrade, a mismatched n
            observe(AcquireResult.ERROR, start);
            throw e;
        }
        if (outcome instanceof Attempt.Blocked) {
            if (!detached) {
                observe(AcquireResult.TIMEOUT, start);
            }
            return null;
        }
        observe(AcquireResult.ACQUIRED, start);
        return (Lease) outcome;
    }

    /** See {@link dev.locks.LockRegistry#withLocks(Collection, Supplier)}. */
    public <T> T withLocks(Collection<String> keys, Supplier<T> action) {
        Objects.requireNonNull(action, "action");
        try (Lease lease = acquire(keys, settings.defaults()); Lease.CurrentScope scope = Lease.makeCurrent(lease)) {
            return action.get();
        }
    }

    /**
     * The one key of an acquire that can take the one-object path ({@link SoloLease}), validated; else
     * {@code null}. That path is the in-memory backend's: with a remote store every lease needs an owner there;
     * and a lease that holds its keys at least some time keeps that time in a {@link TableLease}.
     */
    private String soloKey(Collection<String> keys, long holdNanos, int shape) {
        if (!backing.allowsSoloLeases() || holdNanos != 0 || shape != EXCLUSIVE || keys == null || keys.size() != 1) {
            return null;
        }
        return Keys.requireValid(keys instanceof List<String> list ? list.get(0) : keys.iterator().next(), 0,
                settings.keyLimits());
    }

    /**
     * One attempt, on the one-key path or over sorted keys. {@code waiter} is the caller's place in the wait
     * queues, {@code null} before it has waited; {@code waitNanos} how long a remote store may make the attempt
     * wait for its own resources ({@link Retries#storeWaitNanos}).
     */
    private Attempt attempt(String solo, String[] sorted, long nowNanos, long timeoutNanos, long holdNanos,
            int shape, Waiter waiter, Thread caller, boolean reenter, long waitNanos) {
        if (shape != EXCLUSIVE) {
            return attemptShared(sorted, nowNanos, timeoutNanos, holdNanos, shape, waiter, caller, reenter, waitNanos);
        }
        return solo != null ? attemptSolo(solo, nowNanos, timeoutNanos, waiter, caller, reenter, waitNanos)
                : attempt(sorted, nowNanos, timeoutNanos, holdNanos, waiter, caller, reenter, waitNanos);
    }

    /**
     * What keeps the caller out of {@code key}, which it does not hold already (re-entry never queues), before it
     * touches the table: when fair (this JVM is the whole truth), an older waiter than the caller that waits for the
     * key, whose it is first; in front of a store whose queues count this node's tickets, an older ticket of this
     * node waiting at the key, for which the store would refuse the caller ({@link OwnTickets}). One read of an
     * empty map when nobody waits.
     */
    private Blocker olderWaiter(String key, Waiter waiter, Thread caller, boolean reenter, long nowNanos) {
        Blocker older;
        if (queues.isFair()) {
            if (queues.isEmpty() || !queues.olderWaits(key, waiter == null ? Long.MAX_VALUE : waiter.order)) {
                return null;
            }
            older = queues.olderWaiter(key, waiter);
        } else {
            older = backing.olderTicket(key, waiter);
            if (older == null) {
                return null;
            }
        }
        LockEntry held = table.get(key);
        if (reenter && held != null && held.isOwnedBy(caller) && !table.isExpired(held, nowNanos)) {
            return null;
        }
        return older;
    }

    /** Takes one key as a {@link SoloLease}; re-entry goes through a {@link TableLease} like any other. */
    private Attempt attemptSolo(String key, long nowNanos, long timeoutNanos, Waiter waiter, Thread caller,
            boolean reenter, long waitNanos) {
        Blocker older = olderWaiter(key, waiter, caller, reenter, nowNanos);
        if (older != null) {
            return new Attempt.Blocked(older, 0);
        }
        SoloLease mine = SoloLease.of(leaseHost, key, caller, nowNanos, timeoutNanos, table.leaseNanos(timeoutNanos),
                !reenter);
        LockEntry taken = table.takeSolo(mine, caller, reenter, nowNanos);
        if (taken == mine) {
            if (holds.inUse()) { // shared holders or permits of the key keep it: give it back
                Blocker shared;
                try {
                    shared = holds.blockingExclusive(key, nowNanos);
                } catch (RuntimeException e) {
                    release(mine);
                    throw e;
                }
                if (shared != null) {
                    release(mine);
                    return new Attempt.Blocked(shared, 0);
                }
            }
            mine.token(tokens.issue(key));
            return mine;
        }
        if (taken == LockTable.REENTRY) {
            return attempt(new String[] {key}, nowNanos, timeoutNanos, 0, waiter, caller, reenter, waitNanos);
        }
        return new Attempt.Blocked(taken, 0);
    }

    /**
     * One all-or-nothing pass over the sorted keys: in the table, then (the new ones) in the backing; whatever
     * stops it, everything it took is rolled back.
     */
    private Attempt attempt(String[] keys, long nowNanos, long timeoutNanos, long holdNanos, Waiter waiter,
            Thread caller, boolean reenter, long waitNanos) {
        TableLease lease = new TableLease(leaseHost, keys, nowNanos, timeoutNanos, holdNanos, backing.newOwnerId());
        for (int i = 0; i < keys.length; i++) {
            Blocker blocker = olderWaiter(keys[i], waiter, caller, reenter, nowNanos);
            if (blocker == null) {
                blocker = table.take(keys[i], caller, reenter, lease, i, nowNanos, timeoutNanos);
            }
            if (blocker != null) {
                rollback(lease, i, waiter);
                return new Attempt.Blocked(blocker, i);
            }
            if (holds.inUse()) {
                try {
                    blocker = holds.blockingExclusive(keys[i], nowNanos);
                } catch (RuntimeException e) {
                    rollback(lease, i + 1, waiter);
                    throw e;
                }
                if (blocker != null) {
                    rollback(lease, i + 1, waiter);
                    return new Attempt.Blocked(blocker, i);
                }
            }
        }
        Blocker blocker;
        try {
            blocker = backing.take(lease, timeoutNanos, waiter, waitNanos);
        } catch (RuntimeException | Error e) {
            rollback(lease, keys.length, waiter);
            throw e;
        }
        if (blocker != null) {
            rollback(lease, keys.length, waiter);
            return new Attempt.Blocked(blocker, indexOf(keys, blocker.key()));
        }
        tokens.settle(lease);
        if (holdNanos != 0) {
            for (LockEntry entry : lease.entries) {
                if (!entry.createdBy(lease)) { // re-entered: freed by an outer lease, but not before this one's hold
                    table.holdAtLeastUntil(entry, lease.holdUntilNanos);
                }
            }
        }
        return lease;
    }

    /**
     * One all-or-nothing pass of a shared or counted acquire over the sorted keys ({@link SharedHolds}): per key,
     * behind an older waiter (unless the caller holds the key already), re-entering the caller's own exclusive
     * entry, blocked by another's, or joining the key's group and then checking that no exclusive holder came in
     * meanwhile. Whatever stops it, everything it took is rolled back.
     */
    private Attempt attemptShared(String[] keys, long nowNanos, long timeoutNanos, long holdNanos, int shape,
            Waiter waiter, Thread caller, boolean reenter, long waitNanos) {
        SharedLease lease = new SharedLease(leaseHost, keys, caller, nowNanos, timeoutNanos,
                table.leaseNanos(timeoutNanos), holdNanos, shape, !reenter, backing.newOwnerId());
        for (int i = 0; i < keys.length; i++) {
            Blocker blocker;
            try {
                blocker = takeShared(lease, i, nowNanos, waiter, caller, reenter);
            } catch (RuntimeException | Error e) {
                rollback(lease, i, waiter);
                throw e;
            }
            if (blocker != null) {
                rollback(lease, i, waiter);
                return new Attempt.Blocked(blocker, i);
            }
        }
        Blocker elsewhere; // then in the backing: other nodes' holders, their waiters, their numbers of permits
        try {
            elsewhere = backing.takeShared(lease, timeoutNanos, waiter, waitNanos);
        } catch (RuntimeException | Error e) {
            rollback(lease, keys.length, waiter);
            throw e;
        }
        if (elsewhere != null) {
            rollback(lease, keys.length, waiter);
            return new Attempt.Blocked(elsewhere, indexOf(keys, elsewhere.key()));
        }
        long issued = lease.token; // by the backing, or 0
        boolean joinedAny = false;
        long highest = 0;
        for (int i = 0; i < keys.length; i++) {
            if (lease.groups[i] != null) {
                joinedAny = true;
            } else {
                highest = Math.max(highest, lease.reentered[i].token());
                if (holdNanos != 0) {
                    table.holdAtLeastUntil(lease.reentered[i], lease.holdUntilNanos);
                }
            }
        }
        lease.token = !joinedAny ? highest : issued != 0 ? Math.max(issued, highest) : tokens.issue(keys);
        return lease;
    }

    /** Takes key number {@code i} of a shared or counted lease: {@code null} when taken, else what blocks it. */
    private Blocker takeShared(SharedLease lease, int i, long nowNanos, Waiter waiter, Thread caller,
            boolean reenter) {
        String key = lease.keys[i];
        if (!(reenter && holds.holds(key, caller, false, nowNanos))) {
            Blocker older = olderWaiter(key, waiter, caller, reenter, nowNanos);
            if (older == null && lease.permits == SharedHolds.SHARED && !backing.ordersOwnWaiters()) {
                older = queues.olderWriter(key, waiter);
            }
            if (older != null) {
                return older;
            }
        }
        for (;;) {
            LockEntry held = table.liveHolder(key, nowNanos);
            if (held == null) {
                break;
            }
            if (!(reenter && held.isOwnedBy(caller))) {
                if (lease.permits != SharedHolds.SHARED) {
                    throw SharedHolds.mismatch(key, lease.permits, 1);
                }
                return held;
            }
            if (lease.permits != SharedHolds.SHARED) {
                throw SharedHolds.mismatch(key, lease.permits, 1);
            }
            if (held.tryReenter()) { // an exclusive holder takes its key shared again
                lease.reentered[i] = held;
                return null;
            }
        }
        Blocker blocker = holds.join(key, lease, i, nowNanos);
        if (blocker != null) {
            return blocker;
        }
        LockEntry came = table.liveHolder(key, nowNanos); // an exclusive acquirer that took the key meanwhile
        if (came != null) {
            holds.leave(lease.groups[i], lease, waiter);
            lease.groups[i] = null;
            return came;
        }
        return null;
    }

    private void rollback(SharedLease lease, int taken, Waiter self) {
        for (int i = 0; i < taken; i++) {
            if (lease.groups[i] != null) {
                holds.leave(lease.groups[i], lease, self);
            } else if (lease.reentered[i] != null) {
                table.drop(lease.reentered[i], self);
            }
        }
    }

    /**
     * Releases a shared or counted lease (once), from any thread: closed before its hold-at-least time, its places
     * stay taken until then and free themselves on the maintenance thread.
     */
    private void release(SharedLease lease) {
        for (int i = 0; i < lease.keys.length; i++) {
            if (lease.isLost() && lease.groups[i] != null) {
                observer.onLeaseLost(lease.keys[i]);
            }
            if (lease.reentered[i] != null) {
                backing.release(lease.reentered[i]);
            }
        }
        if (!lease.isLost()) {
            backing.releaseShared(lease); // in the store first: a local waiter woken below finds the place free there
        }
        long now = clock.nanoTime();
        if (lease.holdUntilNanos != 0 && now - lease.holdUntilNanos < 0 && !lease.isLost()) {
            lease.holdOver(lease.holdUntilNanos);
            endHoldOverAfter(lease, lease.holdUntilNanos - now);
            return;
        }
        for (SharedHolds.Group group : lease.groups) {
            if (group != null) {
                holds.leave(group, lease, null);
            }
        }
    }

    private void endHoldOverAfter(SharedLease lease, long delayNanos) {
        maintenance.after(delayNanos, () -> {
            long now = clock.nanoTime();
            if (lease.isExpired(now)) {
                holds.endHoldOver(lease, now);
            } else { // the clock is not the timer's (a test's), or the timer ran early
                endHoldOverAfter(lease, lease.expiresNanos() - now);
            }
        });
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

    /** Releases what {@code lease} holds; called once per lease, from any thread. */
    private void release(TableLease lease) {
        backing.release(lease);
    }

    /**
     * Releases a one-key lease (once; later calls change nothing), from any thread. It takes no hold of its own,
     * but a lease of its thread may have re-entered it with one: then its last hold leaves it held over.
     */
    private void release(SoloLease lease) {
        long until = table.holdUntilNanos(lease);
        int left;
        if (until == 0) {
            left = lease.closeSelf();
        } else {
            long now = clock.nanoTime();
            left = lease.closeSelfOrHoldOver(until, now);
            if (left == -2) {
                ((MemoryBacking) backing).endHoldOverAfter(lease, until - now); // one-key leases are in memory only
                return;
            }
        }
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

    /** The engine as its leases see it: its clock, its default lock timeout and their release. */
    private final class Host implements LeaseHost {

        @Override
        public long nanoTime() {
            return clock.nanoTime();
        }

        @Override
        public Instant toInstant(long nanos) {
            return listing.toInstant(nanos);
        }

        @Override
        public long defaultTimeoutNanos() {
            return defaultTimeoutNanos;
        }

        @Override
        public void release(SoloLease lease) {
            LockEngine.this.release(lease);
        }

        @Override
        public void release(TableLease lease) {
            LockEngine.this.release(lease);
        }

        @Override
        public void release(SharedLease lease) {
            LockEngine.this.release(lease);
        }
    }

    /**
     * A stale shared or counted lease left this node's groups: count it, and free a dead owner's places in the store
     * (its permit would else keep other nodes out until its lock timeout).
     */
    private void staleRemoved(SharedLease lease, StaleReason reason, Remover by) {
        observer.onStaleRemoved(reason, by);
        if (reason == StaleReason.DEAD_OWNER && backing.sharesHolds() && lease.token != 0) { // an expired one ran out there too
            try {
                backing.releaseShared(lease);
            } catch (RuntimeException e) {
                // its places expire after their lease
            }
        }
    }

    /** A stale entry left the table: count it, and free it in the store when it was taken there. */
    private void staleRemoved(LockEntry entry, StaleReason reason, Remover by) {
        observer.onStaleRemoved(reason, by);
        backing.staleRemoved(entry, by);
    }

    /** How many keys have waiters in this JVM (tests: a waiter that gave up leaves nothing behind). */
    int waitedKeys() {
        return queues.size();
    }

    /** Who holds the key that blocked an acquire, as a sentence for its timeout. */
    String blocked(Blocker blocker) {
        if (blocker instanceof Blocker.Busy busy) {
            return busy.reason();
        }
        if (blocker instanceof SharedHolds.Held held) {
            return "'" + held.key() + "' is held " + held.holders() + ".";
        }
        String holder = blocker instanceof LockEntry entry
                ? entry.ownerDescription() + " since " + toInstant(entry.acquiredNanos())
                : backing.holderElsewhere(blocker.key());
        if (holder == null) {
            return "'" + blocker.key() + "' goes first to a caller that has waited for it longer.";
        }
        return "'" + blocker.key() + "' is held by " + holder + ".";
    }

    void observe(AcquireResult result, long start) {
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
        List<HeldLock> held = backing.heldLocks(limit);
        if (!holds.inUse() || backing.sharesHolds()) {
            return held;
        }
        List<HeldLock> all = new ArrayList<>(held);
        all.addAll(holds.heldLocks(this, clock.nanoTime(), limit));
        all.sort(Comparator.comparing(HeldLock::key));
        return all.size() > limit ? List.copyOf(all.subList(0, limit)) : all;
    }

    public Optional<HeldLock> heldLock(String key) {
        Optional<HeldLock> held = backing.heldLock(Keys.requireValid(key, 0));
        if (held.isPresent() || !holds.inUse() || backing.sharesHolds()) {
            return held;
        }
        return holds.heldLocks(this, clock.nanoTime(), Integer.MAX_VALUE).stream()
                .filter(lock -> lock.key().equals(key)).findFirst();
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
        int removed = sweeper.sweep();
        return holds.inUse() ? removed + holds.sweep(clock.nanoTime()) : removed;
    }

    /** See {@link dev.locks.LockRegistry#forceRelease(String)}: with a remote store, on whatever node holds it. */
    public boolean forceRelease(String key) {
        boolean shared = holds.forceRemove(Keys.requireValid(key, 0));
        return backing.forceRelease(key, table.forceRemove(key)) || shared;
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
        AsyncWaits pending;
        boolean first;
        synchronized (this) {
            first = !closed;
            closed = true;
            pending = waits;
        }
        if (first && coarse != null) {
            coarse.release();
        }
        if (pending != null) {
            pending.close(); // pending asynchronous acquires fail, and leave their queues, first
        }
        maintenance.close(); // pending release retries end too: the node's remaining locks go below
        if (holds.inUse() && backing.sharesHolds()) { // this node's shared and counted places, freed in the store
            for (SharedLease lease : holds.leases()) {
                lease.markLost();
                try {
                    backing.releaseShared(lease);
                } catch (RuntimeException e) {
                    // they expire after their lease
                }
            }
        }
        backing.close();
    }

    /**
     * Whether an acquire stamps its lease with the {@link CoarseClock} rather than a reading of the clock: in memory
     * on the system clock, when exclusive, holding nothing at least some time, observed by no one (who would time
     * it) and while no key was ever held shared or by permits (whose leases are judged at the acquire's time). The
     * stamp is never before the true time, unless the ticker was late, which the table then allows for
     * ({@link LockTable#judgedAt}).
     */
    private boolean stampsCoarsely(long holdNanos, int shape) {
        return coarse != null && holdNanos == 0 && shape == EXCLUSIVE && !observing && !holds.inUse();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("this " + settings.backend() + " lock registry is closed");
        }
    }

    private static long holdNanos(AcquireOptions options) {
        return options.holdAtLeast().isZero() ? 0 : Nanos.of(options.holdAtLeast());
    }

    private static long timeoutNanos(AcquireOptions options) {
        Optional<Duration> timeout = options.lockTimeout();
        return timeout.isPresent() ? Nanos.of(timeout.get()) : Nanos.NEVER;
    }
}
