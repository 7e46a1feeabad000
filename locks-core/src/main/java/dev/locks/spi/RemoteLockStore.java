package dev.locks.spi;

import java.time.Instant;
import java.util.List;
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
 * cannot be reached; nothing is then left taken.
 */
public interface RemoteLockStore extends AutoCloseable {

    /**
     * Takes every key for {@code owner}, all or none, atomically and in one round trip, each with a lease
     * of {@code leaseMillis}.
     *
     * @param keys sorted, distinct keys
     * @param owner who takes them: unique per lease across every node
     * @param leaseMillis how long the keys stay taken unless renewed; {@code 0} for no expiry
     * @return the fencing token, or which key someone else holds
     */
    Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis);

    /**
     * Releases each key that its given owner still holds, and tells every node (one round trip).
     *
     * @return the keys that their owner no longer held (expired, or taken): the leases that lost them
     */
    Set<String> release(List<Ownership> keys);

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
     * @param leaseMillis for {@link #renew}: the new lease; ignored by {@link #release}
     */
    record Ownership(String key, String ownerId, long leaseMillis) {
    }

    /**
     * What one {@link #tryAcquire} did.
     *
     * @param token the fencing token when every key was taken (greater than every token the store issued
     *        before), else 0
     * @param heldKey when not taken, a key that another owner holds
     */
    record Attempt(long token, String heldKey) {

        public static Attempt taken(long token) {
            return new Attempt(token, null);
        }

        public static Attempt heldBy(String heldKey) {
            return new Attempt(0, heldKey);
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
