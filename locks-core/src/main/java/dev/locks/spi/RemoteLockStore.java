package dev.locks.spi;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The shared storage of a distributed backend (Redis, later SQL), behind each node's in-memory lock table.
 *
 * <p>A node first takes keys in its own table (so that threads of one node contend in memory, and
 * re-entry costs no round trip), then in the store, for the keys it did not hold yet. The store sees one
 * owner per lease; keys are passed without any storage prefix (the store applies its own).
 *
 * <p>Every method that talks to the store throws {@link dev.locks.LockUnavailableException} when the store
 * cannot be reached; nothing is then left taken. A store spread over servers that reached only some of a call's
 * keys throws a {@link PartlyUnavailableException} naming the others (and, from {@link #tryAcquire}, the keys it
 * could not undo): the engine then retries only those, in the background.
 *
 * <p>The calls an acquiring caller makes while it waits ({@link #tryAcquire(List, Owner, long, Ticket, long)},
 * {@link #enqueue(List, Ticket, long)}, {@link #dequeue(List, String, long)}) are told how long the caller can still
 * wait, so that a store whose calls queue for resources of its own (a JDBC node's few connections) never holds a
 * caller past its wait time: when none came free in time it throws {@link StoreBusyException} (nothing sent). A
 * store whose calls do not queue ignores it (the defaults); each round trip is bounded by the store's own timeout
 * either way.
 */
public interface RemoteLockStore extends AutoCloseable {

    /**
     * The {@code waitNanos} of a caller whose wait no time bounds (only its retries, or nothing): its call waits for
     * the store's resources as long as the calls before it are answered.
     */
    long UNBOUNDED_WAIT = Long.MAX_VALUE;

    /**
     * The {@code waitNanos} of a caller that does not wait for its keys (a {@code tryAcquire}, an acquire without
     * retries or with a wait time of zero): its one attempt is still made on a busy node, after waiting for the
     * store's resources for at most one of the store's round-trip timeouts.
     */
    long ONE_ATTEMPT = -1;

    /**
     * Takes every key for {@code owner}, all or none, atomically and in one round trip, each with a lease
     * of {@code leaseMillis}.
     *
     * @param keys sorted, distinct keys
     * @param owner who takes them: unique per lease across every node
     * @param leaseMillis how long the keys stay taken unless renewed; {@code 0} for an infinite lock timeout (a
     *        store whose {@link #infiniteLeaseMillis()} is not 0 holds them under that lease, which the engine
     *        renews; else they never expire)
     * @return the fencing token, or which key someone else holds
     */
    Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis);

    /**
     * {@link #tryAcquire(List, Owner, long)} for a caller that waits its turn (SPEC "No starvation"): each key
     * has a queue of waiting tickets across every node, oldest (lowest order) first, whose expired tickets
     * do not count. The keys are taken only if none is held and no live ticket older than {@code ticket}
     * (any live ticket, when {@code ticket} is null) waits for one of them. When taken, the ticket leaves every
     * queue of the keys. When not, and {@code ticket} is given, it is placed (or refreshed, with its order
     * kept) in the queues of the keys up to and including the first one in its way, in their sorted order, and
     * taken out of the queues of the later keys: a waiter claims a key only once it could take the keys before
     * it, as a holder of sorted keys does, so claims and holds never wait for each other in a circle.
     *
     * <p>A store without queues ignores the ticket (the default): its waiters are not protected from newer
     * acquirers.
     *
     * @param ticket the caller's ticket, {@code null} for a caller that does not wait (yet)
     * @return the token, or which key is in the way and the ticket's order (when placed)
     */
    default Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis, Ticket ticket) {
        return tryAcquire(keys, owner, leaseMillis);
    }

    /**
     * {@link #tryAcquire(List, Owner, long, Ticket)} within the caller's wait: a store whose calls wait for resources
     * of its own lets this one wait for them at most {@code waitNanos}, then throws {@link StoreBusyException}
     * (nothing sent, nothing taken). The default ignores the wait.
     *
     * @param waitNanos how long the caller can still wait, in nanoseconds ({@code 0}: not at all, only what is free
     *        now), or {@link #UNBOUNDED_WAIT}, or {@link #ONE_ATTEMPT}
     * @throws StoreBusyException when the call could not be made within {@code waitNanos}
     */
    default Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis, Ticket ticket, long waitNanos) {
        return tryAcquire(keys, owner, leaseMillis, ticket);
    }

    /**
     * Places or refreshes {@code ticket} in the queues of {@code keys} (its order kept once it has one), without
     * trying to take them: a waiter blocked in its own node's memory keeps its place across nodes, and one that
     * waits long refreshes its ticket before it expires. One round trip.
     *
     * @return the ticket's order, 0 when the store has no queues (the default)
     */
    default long enqueue(List<String> keys, Ticket ticket) {
        return 0;
    }

    /**
     * {@link #enqueue(List, Ticket)} within the caller's wait ({@code waitNanos} as for
     * {@link #tryAcquire(List, Owner, long, Ticket, long)}). The default ignores the wait.
     *
     * @throws StoreBusyException when the call could not be made within {@code waitNanos}
     */
    default long enqueue(List<String> keys, Ticket ticket, long waitNanos) {
        return enqueue(keys, ticket);
    }

    /**
     * Whether this store implements {@link #refreshTickets}: if not, each waiter refreshes its own ticket with
     * {@link #enqueue(List, Ticket, long)}. {@code false} by default.
     */
    default boolean refreshesTickets() {
        return false;
    }

    /**
     * Extends, to {@code leaseMillis} from now (the store's clock), each of {@code tickets} in the queue of each
     * of its keys where it still is; a ticket no longer in a queue (taken out, expired and purged, or never
     * placed there) stays out: unlike {@link #enqueue}, this never places a ticket, so that a refresh crossing
     * its waiter's {@link #dequeue} or successful acquire leaves nothing behind. A node refreshes all of its
     * waiters' tickets so, in one round trip (per shard), whatever their number.
     *
     * @throws dev.locks.LockUnavailableException when the store cannot be reached: best effort, the tickets
     *         then expire, costing their waiters only their places
     */
    default void refreshTickets(List<Queued> tickets, long leaseMillis) {
        throw new UnsupportedOperationException("this store does not refresh tickets in bulk");
    }

    /**
     * Takes {@code ticketId} out of the queues of {@code keys}: its waiter gave up. The next waiters of those
     * keys are told (as by a release), since the key may now be theirs. One round trip; nothing is left behind.
     */
    default void dequeue(List<String> keys, String ticketId) {
    }

    /**
     * {@link #dequeue(List, String)} for a caller that is leaving, within what is left of its wait ({@code
     * waitNanos} as for {@link #tryAcquire(List, Owner, long, Ticket, long)}). The default ignores the wait.
     *
     * @throws StoreBusyException when the call could not be made within {@code waitNanos}: the engine takes the
     *         ticket out later, in the background
     */
    default void dequeue(List<String> keys, String ticketId, long waitNanos) {
        dequeue(keys, ticketId);
    }

    /**
     * Whether this store holds keys shared and by permits ({@link #tryAcquireShared}, {@link #releaseShared},
     * {@link #renewShared}): SPEC section 13. A registry over a store that does not refuses shared and counted
     * acquires. {@code false} by default.
     */
    default boolean holdsShared() {
        return false;
    }

    /**
     * Takes every key for {@code owner} as one of its holders, all or none, atomically as
     * {@link #tryAcquire(List, Owner, long, Ticket, long)} does (in sorted order, waiting its turn behind older
     * tickets with the same queues, placing {@code ticket} the same way when blocked, issuing one fencing token
     * from the same counter). A key is held by any number of shared holders ({@code permits} {@link #SHARED}) or by at
     * most {@code permits} holders, each with a lease of its own that expires by itself; never by an exclusive
     * holder at the same time. An exclusive acquire of a key held this way is blocked by it.
     *
     * @param permits {@link #SHARED}, or the number of permits (&gt; 1)
     * @return the token; or the key in the way and the ticket's order; or, when a key is held with another number
     *         of permits (exclusive: 1), that key and that number ({@link Attempt#heldPermits()}), nothing taken and
     *         no ticket placed
     * @throws UnsupportedOperationException when the store does not {@linkplain #holdsShared() hold keys shared}
     */
    default Attempt tryAcquireShared(List<String> keys, Owner owner, long leaseMillis, int permits, Ticket ticket,
            long waitNanos) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot hold a key shared or by permits");
    }

    /**
     * Whether the store's queues order the waiters of one node among themselves too (a ticket of the caller's own
     * node counts as any other's, as on Redis and the JDBC stores). When not (the default: a store without queues, or
     * one that leaves a node's own waiters to the node), the engine itself keeps a node's newer shared acquirers of a
     * key behind its older exclusive waiter of that key (SPEC 13: writers are not starved); a node's exclusive
     * waiters then have no order among themselves, and many one-key callers of a node can starve its many-key
     * waiter.
     */
    default boolean queuesOwnWaiters() {
        return false;
    }

    /** The {@code permits} of a shared (read) hold in {@link #tryAcquireShared}. */
    int SHARED = -1;

    /**
     * Releases each shared or counted hold its given owner still has on its key (the other holders keep theirs),
     * and tells the waiting nodes of the keys that have waiters, as {@link #release} does. One round trip.
     *
     * @return the keys on which their owner no longer held a place (expired, or forced out)
     */
    default Set<String> releaseShared(List<Ownership> keys) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot hold a key shared or by permits");
    }

    /**
     * Extends the lease of each shared or counted hold its given owner still has, as {@link #renew} does.
     *
     * @return the keys on which their owner no longer held a place
     */
    default Set<String> renewShared(List<Ownership> keys) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot hold a key shared or by permits");
    }

    /**
     * The lease under which the store holds a lock whose lock timeout is infinite, in milliseconds; {@code 0}
     * (the default) when it can hold a lock without expiry. A store that never writes a lock without expiry
     * (SPEC "Infinite lock timeout on a distributed backend") returns its lease: the engine then takes such locks
     * with that lease and renews them every third of it, watchdog or not, so that a crashed node's "infinite"
     * locks free themselves after the lease.
     */
    default long infiniteLeaseMillis() {
        return 0;
    }

    /**
     * Releases each key that its given owner still holds, and tells every node (one round trip).
     *
     * @return the keys that their owner no longer held (expired, or taken): the leases that lost them
     */
    Set<String> release(List<Ownership> keys);

    /**
     * Whether this store implements {@link #releaseHeld}: an acquire with {@code holdAtLeast} on a store that does
     * not is refused. {@code false} by default.
     */
    default boolean holdsAtLeast() {
        return false;
    }

    /**
     * Releases keys whose lease was closed, some before their {@linkplain Ownership#holdMillis() hold-at-least
     * time} ({@code acquiredAt + holdMillis}, the lock's acquire time and the clock being the store's): each key
     * its given owner still holds is released as by {@link #release} (every node told) when that time has passed
     * or its {@code holdMillis} is 0; else it stays locked for everyone (its owner's renewals included: they
     * find it lost) and expires by itself at that time, while a later {@code releaseHeld} of the same ownership
     * still reaches it (the engine calls it again then, so that waiters are told at once). One round trip, as a
     * release.
     *
     * @return the keys that their owner no longer held, and for each key held over the milliseconds until it
     *         frees itself, by the store's clock
     * @throws UnsupportedOperationException when the store does not {@linkplain #holdsAtLeast() hold at least}
     */
    default Held releaseHeld(List<Ownership> keys) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot hold a lock at least some time");
    }

    /**
     * What {@link #releaseHeld} did.
     *
     * @param lost the keys their owner no longer held
     * @param heldMillis for each key that stays locked, how many milliseconds it stays locked (> 0)
     */
    record Held(Set<String> lost, Map<String, Long> heldMillis) {

        public Held {
            lost = Set.copyOf(lost);
            heldMillis = Map.copyOf(heldMillis);
        }

        /**
         * What a store's call answered as pairs {@code i, ms} over {@code keys}: the key at 1-based position
         * {@code i} is held over {@code ms} milliseconds when {@code ms > 0}, lost when {@code ms} is 0; keys
         * without a pair were released.
         */
        public static Held ofPairs(List<Ownership> keys, List<? extends Number> pairs) {
            Set<String> lost = new java.util.LinkedHashSet<>();
            Map<String, Long> held = new java.util.HashMap<>();
            for (int i = 0; i + 1 < pairs.size(); i += 2) {
                String key = keys.get(pairs.get(i).intValue() - 1).key();
                long millis = pairs.get(i + 1).longValue();
                if (millis > 0) {
                    held.put(key, millis);
                } else {
                    lost.add(key);
                }
            }
            return new Held(lost, held);
        }
    }

    /**
     * Extends the lease of each key its given owner still holds (one round trip for the batch).
     *
     * @return the keys that their owner no longer held
     */
    Set<String> renew(List<Ownership> keys);

    /** Every lock in the store, read in batches of about {@code batchSize} (never a blocking full listing). */
    List<RemoteLock> scan(int batchSize);

    /**
     * At most {@code limit} locks of the store, read in batches of about {@code batchSize}; a store that can
     * should stop reading once it has {@code limit}. The default reads them all and keeps the first.
     */
    default List<RemoteLock> scan(int batchSize, int limit) {
        List<RemoteLock> locks = scan(batchSize);
        return locks.size() <= limit ? locks : locks.subList(0, limit);
    }

    /** The lock on {@code key}, if any. */
    RemoteLock get(String key);

    /** Removes whatever holds {@code key}, and tells every node; whether there was a lock. */
    boolean forceRelease(String key);

    /**
     * Starts delivering the keys released on any node to {@code released}, through one subscription for
     * the whole node (never one per key).
     *
     * @param missed run each time the subscription is confirmed: first, and again whenever it comes back
     *        (after an outage, say), when releases may have gone unseen or locks vanished with a restarted
     *        server; the engine then has every waiter of the node try again at once
     * @return false when notification is off: waiters then poll at their retry interval
     */
    boolean subscribe(Consumer<String> released, Runnable missed);

    /** Stops the subscription. Held locks are the engine's to release first. */
    @Override
    void close();

    /**
     * The owner of a lease, as the store records it.
     *
     * @param id unique per lease across every node
     * @param description readable: thread name and node, for operations
     */
    record Owner(String id, String description) {
    }

    /**
     * A key with the owner that holds it, and the lease to renew it with.
     *
     * @param leaseMillis for {@link #renew}: the new lease ({@code 0}: an infinite lock timeout, as in
     *        {@link #tryAcquire(List, Owner, long)}); ignored by {@link #release}
     * @param holdMillis for {@link #releaseHeld}: how long after its acquire time the key stays locked when
     *        released earlier; {@code 0} for none
     */
    record Ownership(String key, String ownerId, long leaseMillis, long holdMillis) {

        /** An ownership without a hold-at-least time. */
        public Ownership(String key, String ownerId, long leaseMillis) {
            this(key, ownerId, leaseMillis, 0);
        }

        public Ownership {
            if (holdMillis < 0) {
                throw new IllegalArgumentException("holdMillis must be >= 0, was " + holdMillis);
            }
        }
    }

    /**
     * A waiter's ticket placed in the wait queues of {@code keys}, for {@link #refreshTickets}.
     *
     * @param keys the keys at whose queues it was placed
     * @param ticketId its {@link Ticket#id()}
     */
    record Queued(List<String> keys, String ticketId) {
        public Queued {
            keys = List.copyOf(keys);
            Objects.requireNonNull(ticketId, "ticketId");
        }
    }

    /**
     * A waiter's ticket in the wait queues of its keys.
     *
     * @param id unique per waiting acquire across every node
     * @param order its place, from the store ({@link Attempt#ticketOrder()}); 0 until it has been placed
     * @param leaseMillis how long the ticket counts unless refreshed (its waiter may have crashed)
     */
    record Ticket(String id, long order, long leaseMillis) {
    }

    /**
     * What one {@link #tryAcquire} did.
     *
     * @param token the fencing token when every key was taken (greater than every token the store issued
     *        before), else 0
     * @param heldKey when not taken, a key that another owner holds or an older waiter waits for
     * @param ticketOrder when not taken, the order of the caller's ticket if it was placed, else 0
     * @param heldPermits when a shared or counted acquire was refused because {@code heldKey} is held with another
     *        number of permits: that number ({@link RemoteLockStore#SHARED} for shared, 1 for exclusive); else 0
     */
    record Attempt(long token, String heldKey, long ticketOrder, int heldPermits) {

        public Attempt(long token, String heldKey, long ticketOrder) {
            this(token, heldKey, ticketOrder, 0);
        }

        public Attempt(long token, String heldKey) {
            this(token, heldKey, 0);
        }

        /**
         * A shared or counted acquire refused at {@code heldKey}, which is held with {@code heldPermits} permits
         * ({@link RemoteLockStore#SHARED}: shared; 1: exclusive).
         */
        public static Attempt mismatch(String heldKey, int heldPermits) {
            return new Attempt(0, heldKey, 0, heldPermits);
        }

        public static Attempt taken(long token) {
            return new Attempt(token, null);
        }

        public static Attempt heldBy(String heldKey) {
            return new Attempt(0, heldKey);
        }

        public static Attempt heldBy(String heldKey, long ticketOrder) {
            return new Attempt(0, heldKey, ticketOrder);
        }

        public boolean isTaken() {
            return token > 0;
        }
    }

    /**
     * A lock as the store holds it.
     *
     * @param expiresAt {@link Instant#MAX} when it never expires
     */
    record RemoteLock(String key, String ownerId, String ownerDescription, long token, Instant acquiredAt,
            Instant expiresAt) {
    }
}
