package dev.locks.internal;

import dev.locks.AcquireOptions;
import dev.locks.HeldLock;
import dev.locks.LocksObserver.Remover;
import java.util.List;
import java.util.Optional;

/**
 * What stands behind the engine's table, the one thing in which backends differ: nothing ({@link MemoryBacking},
 * the table is the whole truth) or a remote store ({@link StoreBacking}, the table holds this node's locks and
 * the store everyone's). The engine's algorithm (attempts, re-entry, waiting, retries, stale removal, the
 * watchdog's schedule) is the same over both; each method here is a point where it asks the backing.
 */
interface Backing extends AutoCloseable {

    /** Whether one-key acquires may take the one-object path ({@link SoloLease}, which has no owner id). */
    boolean allowsSoloLeases();

    /** Whether a caller who may wait takes its place in the queues before its first attempt. */
    boolean queuesFirstAttempt(AcquireOptions options);

    /** The owner id of a new lease in the backing; {@code null} when there is none. */
    String newOwnerId();

    /**
     * Takes in the backing the keys that {@code lease} newly took in the table, leaving in {@code lease.token}
     * the token the backing issued for them (0 when it issues none; see {@link LeaseTokens#settle}).
     *
     * @param waitNanos how long the caller can still wait for the backing to make the call, as a remote store takes it
     *        ({@link dev.locks.spi.RemoteLockStore#tryAcquire(List, dev.locks.spi.RemoteLockStore.Owner, long,
     *        dev.locks.spi.RemoteLockStore.Ticket, long)})
     * @return {@code null} when taken, else what blocks (the caller rolls back)
     */
    Blocker take(TableLease lease, long timeoutNanos, Waiter waiter, long waitNanos);

    /**
     * {@code waiter} was put in this node's queues of its keys up to the one of index {@code blockedAt}, which is
     * in its way; {@code local} when this node's table was in its way (a store had it in its own queues already
     * when it was in the way).
     */
    void enlisted(Waiter waiter, int blockedAt, boolean local);

    /**
     * Whether an attempt may block its thread (a round trip to a store): then an asynchronous acquire makes even
     * its first attempt on the engine's pool, never on the caller's thread.
     */
    boolean attemptsBlock();

    /**
     * How long {@code waiter} may pause before {@link #refreshWaiting} is due ({@link Long#MAX_VALUE}: never): an
     * asynchronous acquire's timer wakes it at least this often.
     */
    long waitSliceNanos(Waiter waiter);

    /** Keeps a pausing waiter's place in the backing (a ticket's refresh in a store). */
    void refreshWaiting(Waiter waiter);

    /** Parks {@code waiter} until signalled, interrupted or the pause ends; the interrupt status is left set. */
    void await(Waiter waiter, int seen, long pauseNanos);

    /** {@code waiter} got its keys or gave up: it left this node's queues, and leaves the backing's. */
    void left(Waiter waiter);

    /**
     * Whether a lease may hold its keys at least some time ({@code holdAtLeast}): its keys, released earlier,
     * stay locked for everyone until then by the backing's clock, then free themselves and wake their waiters.
     */
    boolean holdsAtLeast();

    /**
     * Releases what {@code lease} holds; called once per lease, from any thread. A key whose last hold goes
     * before its {@linkplain LockEntry#holdUntilNanos() hold-at-least time} stays locked until then.
     */
    void release(TableLease lease);

    /** A stale entry left the table, removed {@code by}. */
    void staleRemoved(LockEntry entry, Remover by);

    /** The watchdog's renewal of a batch of live owners' entries. */
    void renew(List<LockEntry> batch);

    /** An acquire asks for a lock timeout of {@code timeoutNanos} ({@link Long#MAX_VALUE}: infinite). */
    void covering(long timeoutNanos);

    /** Who holds {@code key}, which no entry of this node's table holds, as a phrase; {@code null} if unknown. */
    String holderElsewhere(String key);

    /** See {@link dev.locks.LockRegistry#heldLocks(int)}. */
    List<HeldLock> heldLocks(int limit);

    /** See {@link dev.locks.LockRegistry#heldLock(String)}, for a valid key. */
    Optional<HeldLock> heldLock(String key);

    /** A sweep removed {@code removed} from the table. */
    void swept(List<LockEntry> removed);

    /** Frees {@code key} wherever it is held; {@code removedHere} when this node's table held it. */
    boolean forceRelease(String key, boolean removedHere);

    /**
     * Whether keys may be held shared or by permits ({@link SharedLease}): always in memory, where {@link SharedHolds}
     * is the whole truth; in front of a store, when the store holds them ({@link dev.locks.spi.RemoteLockStore#holdsShared()}),
     * and then it lists them too.
     */
    boolean holdsShared();

    /**
     * Whether the backing orders this node's waiters among themselves (fair queues in memory, or a store whose queues
     * count a node's own tickets); if not, the engine keeps newer shared acquirers behind an older exclusive waiter.
     */
    boolean ordersOwnWaiters();

    /**
     * What keeps {@code waiter} (a newcomer when {@code null}) out of {@code key} before it touches the table: in front
     * of a store whose queues count this node's tickets, an older one of them waiting at the key; else {@code null}.
     */
    Blocker olderTicket(String key, Waiter waiter);

    /** Whether the holds of {@link SharedHolds} live in the backing too, which then lists and frees them. */
    boolean sharesHolds();

    /**
     * Takes in the backing the keys that a shared or counted {@code lease} joined in this node's groups, leaving in
     * {@code lease.token} the token it issued (0 when it issues none).
     *
     * @return {@code null} when taken (or nothing to take), else what blocks (the caller rolls back)
     * @throws IllegalArgumentException when the backing holds a key with another number of permits
     */
    Blocker takeShared(SharedLease lease, long timeoutNanos, Waiter waiter, long waitNanos);

    /** Releases what a shared or counted {@code lease} joined, before it leaves this node's groups. */
    void releaseShared(SharedLease lease);

    /** Renews the leases of shared or counted holds that are due ({@link SharedLease#renewalDue}). */
    void renewShared(List<SharedLease> due);

    /** Drops one hold of an exclusive {@code entry} that a shared lease of its thread re-entered. */
    void release(LockEntry entry);

    /** The engine is closing, after its background work stopped. */
    @Override
    void close();
}
