package dev.locks.internal;

import dev.locks.HeldLock;
import dev.locks.LockUnavailableException;
import dev.locks.LocksClock;
import dev.locks.spi.PartlyUnavailableException;
import dev.locks.spi.RemoteLockStore;
import dev.locks.spi.RemoteLockStore.Attempt;
import dev.locks.spi.RemoteLockStore.Ownership;
import dev.locks.spi.RemoteLockStore.RemoteLock;
import dev.locks.spi.StoreBusyException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;

/**
 * The engine's side of a {@link RemoteLockStore}: takes in the store the keys a lease took in the node's
 * table, releases and renews them, and turns the store's release notifications into wake-ups.
 */
final class RemoteLocks implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RemoteLocks.class.getName());
    /** The first pause before a failed release is tried again; it doubles up to {@link #MAX_RETRY_NANOS}. */
    static final long FIRST_RETRY_NANOS = 50_000_000L;
    /**
     * The longest pause between retries: what an outage left to release (or to renew) is done within it of the store
     * answering again. Measured on a Cluster whose master was killed under load (RedisClusterKillUnderLoadTest,
     * traced): with 1 s, the leases taken on the dead master before the kill were released by the first retry after
     * the client saw the promoted replica, 0.2-1.3 s after the promotion; with 250 ms, 0.2-0.8 s. With the client's
     * view refreshed after a failed call (61-77 ms after the promotion), the 250 ms back-off was what remained: the
     * dead master's leftover locks went 215-250 ms after the view changed. Every pending release and ticket removal
     * goes in one pass, so 100 ms costs a node at most ten failing passes a second during an outage.
     */
    static final long MAX_RETRY_NANOS = 100_000_000L;

    private final RemoteLockStore store;
    private final LocksClock clock;
    private final Maintenance maintenance;
    private final String node;
    private final String nodeId;
    private final AtomicLong leases = new AtomicLong();
    private final WaitQueues queues;
    private final RemoteWaiters waiters;
    private final boolean notified;
    private final long infiniteLeaseMillis;
    private final StoreRetries retries;
    /** This node's waiters with a ticket placed in the store, for {@link #refreshQueued}. */
    private final Set<Waiter> queued = ConcurrentHashMap.newKeySet();
    /** This node's tickets per key, when the store's queues count them ({@code null} when not). */
    private final OwnTickets ownTickets;
    private final ReentrantLock refreshing = new ReentrantLock();

    /**
     * @param maintenance the engine's background thread, which retries releases that failed
     * @param application the application's name, for the owners' descriptions; {@code null} for none
     */
    RemoteLocks(RemoteLockStore store, LocksClock clock, Maintenance maintenance, WaitQueues queues,
            String application) {
        this.store = store;
        this.clock = clock;
        this.maintenance = maintenance;
        this.retries = new StoreRetries(store, clock, maintenance);
        this.queues = queues;
        this.waiters = new RemoteWaiters(queues);
        this.ownTickets = store.queuesOwnWaiters() ? new OwnTickets(queues) : null;
        this.infiniteLeaseMillis = store.infiniteLeaseMillis();
        long pid = ProcessHandle.current().pid();
        String host = hostName();
        this.node = describeNode(application, host, pid);
        this.nodeId = pid + "@" + host + "/" + UUID.randomUUID().toString().substring(0, 8);
        this.notified = store.subscribe(waiters::released, this::subscribed);
    }

    /**
     * The subscription was confirmed: every waiter of the node tries again at once. Releases may have gone unseen
     * before: after an outage (or locks vanished with a restarted server), and the first time too, when the store
     * confirms later than it subscribed (PostgreSQL's {@code LISTEN} runs on the node's listening thread) and a
     * waiter was turned away meanwhile. With nobody waiting it costs nothing.
     */
    private void subscribed() {
        waiters.releasedAll();
    }

    /**
     * How an owner's description names its node (SPEC section 10): the application's name when set, the host name
     * and the process id, as in {@code "report-service on web-3 (4242)"}.
     */
    static String describeNode(String application, String host, long pid) {
        String where = host + " (" + pid + ")";
        return application == null || application.isBlank() ? where : application.strip() + " on " + where;
    }

    /** A new owner id, unique across nodes. */
    String newOwnerId() {
        return nodeId + ":" + leases.incrementAndGet();
    }

    /** The lease under which the store holds a lock of infinite lock timeout (ms); 0 when it can hold it forever. */
    long infiniteLeaseMillis() {
        return infiniteLeaseMillis;
    }

    /**
     * Takes in the store the keys that {@code lease} took in the table (not those it re-entered), and leaves
     * the store's fencing token in {@code lease.token}. A {@code waiter} (null on a first attempt) waits
     * its turn there: not taken, it keeps its place in the store's queues of the keys up to the one in its way. A
     * store that could not make the call within {@code waitNanos} (busy) made none: that blocks too.
     *
     * @return {@code null} when taken (or nothing was new), else what blocks: the caller rolls back
     */
    Blocker take(TableLease lease, long timeoutNanos, Waiter waiter, long waitNanos) {
        List<String> created = new ArrayList<>(lease.keys.length);
        Thread acquirer = null;
        for (LockEntry entry : lease.entries) {
            if (entry.createdBy(lease)) {
                created.add(entry.key());
                acquirer = entry.acquirer;
            }
        }
        if (created.isEmpty()) {
            return null;
        }
        // the thread that asked, which is not the one making the attempt for an asynchronous acquire
        RemoteLockStore.Owner owner = new RemoteLockStore.Owner(lease.ownerId, acquirer.getName() + " @ " + node);
        return take(created, owner, timeoutNanos, waiter, waitNanos, 0, token -> lease.token = token);
    }

    /**
     * Takes in the store the keys that a shared or counted {@code lease} joined in this node's groups (not those it
     * re-entered), as {@link #take(TableLease, long, Waiter, long)} does, and leaves the store's token in
     * {@code lease.token}.
     *
     * @throws IllegalArgumentException when the store holds one of them with another number of permits
     */
    Blocker takeShared(SharedLease lease, long timeoutNanos, Waiter waiter, long waitNanos) {
        List<String> joined = joined(lease);
        if (joined.isEmpty()) {
            return null;
        }
        RemoteLockStore.Owner owner = new RemoteLockStore.Owner(lease.ownerId, lease.acquirer.getName() + " @ " + node
                + (lease.isShared() ? " (shared)" : " (one of " + lease.permits + " permits)"));
        return take(joined, owner, timeoutNanos, waiter, waitNanos, lease.permits, token -> lease.token = token);
    }

    /** The keys of {@code lease} that it joined in this node's groups. */
    private static List<String> joined(SharedLease lease) {
        List<String> joined = new ArrayList<>(lease.keys.length);
        for (int i = 0; i < lease.keys.length; i++) {
            if (lease.groups[i] != null) {
                joined.add(lease.keys[i]);
            }
        }
        return joined;
    }

    /**
     * One attempt in the store for {@code created}: exclusive ({@code permits} 0), else shared or counted.
     *
     * @return {@code null} when taken (the token given to {@code taken}), else what blocks
     */
    private Blocker take(List<String> created, RemoteLockStore.Owner owner, long timeoutNanos, Waiter waiter,
            long waitNanos, int permits, LongConsumer taken) {
        long[] epochs = new long[created.size()];
        for (int i = 0; i < epochs.length; i++) {
            epochs[i] = waiters.epoch(created.get(i));
        }
        Attempt attempt;
        RemoteLockStore.Ticket ticket = waiter == null ? null : ticket(waiter);
        try {
            attempt = permits == 0 ? store.tryAcquire(created, owner, leaseMillis(timeoutNanos), ticket, waitNanos)
                    : store.tryAcquireShared(created, owner, leaseMillis(timeoutNanos), permits, ticket, waitNanos);
        } catch (StoreBusyException e) {
            return new Blocker.Busy(created.get(0), e.getMessage());
        } catch (PartlyUnavailableException e) {
            undoLater(created, e.unreached(), owner.id(), timeoutNanos, permits != 0);
            throw e;
        }
        if (attempt.heldPermits() != 0) {
            throw SharedHolds.mismatch(attempt.heldKey(), permits, attempt.heldPermits());
        }
        if (waiter != null && waiter.remoteKeys.removeAll(created)) { // placed again below, up to the key in its way
            unqueuedFrom(waiter);
        }
        if (attempt.isTaken()) {
            ticketsMoved(waiter);
            taken.accept(attempt.token()); // settled, and given to the new entries, by LeaseTokens
            return null;
        }
        String held = attempt.heldKey();
        int index = created.indexOf(held);
        if (waiter != null && attempt.ticketOrder() > 0) {
            placed(waiter, attempt.ticketOrder(), created.subList(0, index + 1));
        }
        ticketsMoved(waiter);
        return notified ? waiters.blocker(held, index < 0 ? -1 : epochs[index]) : polling(held);
    }

    /**
     * Releases in the store what shared or counted {@code leases} joined; a store that cannot be reached leaves
     * those places to expire after their lease (logged).
     *
     * @return the keys on which the store says their owner no longer held a place
     */
    Set<String> releaseShared(Collection<SharedLease> leases) {
        List<Ownership> ownerships = new ArrayList<>();
        for (SharedLease lease : leases) {
            for (String key : joined(lease)) {
                ownerships.add(new Ownership(key, lease.ownerId, 0));
            }
        }
        if (ownerships.isEmpty()) {
            return Set.of();
        }
        try {
            return store.releaseShared(ownerships);
        } catch (LockUnavailableException e) {
            Set<String> unreached = StoreRetries.unreached(e);
            List<Ownership> left = ownerships.stream()
                    .filter(ownership -> unreached == null || unreached.contains(ownership.key())).toList();
            if (maintenance.isClosed()) {
                LOG.log(Level.WARNING, () -> "could not release the shared or counted places of "
                        + Keys.describe(keysOf(left)) + " in the lock store; they expire after their lease", e);
            } else {
                LOG.log(Level.WARNING, () -> "could not release the shared or counted places of "
                        + Keys.describe(keysOf(left)) + " in the lock store; retrying in the background until it"
                        + " succeeds or their lease ran out", e);
                long latest = clock.nanoTime() + infiniteLeaseMillis * 1_000_000;
                for (SharedLease lease : leases) {
                    long expires = lease.expiresNanos();
                    if (expires != Long.MAX_VALUE && expires - latest > 0) {
                        latest = expires;
                    }
                }
                retries.releaseShared(left, latest);
            }
            return e instanceof PartlyUnavailableException partly ? partly.lost() : Set.of();
        }
    }

    /**
     * Renews shared or counted leases in the store: each moves forward only as far as the store confirmed it
     * ({@link SharedLease#renewed}); one the store says its owner no longer holds on some key is lost. An
     * unreachable store confirms nothing: the next watchdog pass tries again while the leases last.
     */
    void renewShared(List<SharedLease> leases) {
        List<Ownership> ownerships = new ArrayList<>();
        for (SharedLease lease : leases) {
            long millis = lease.timeoutNanos == Long.MAX_VALUE ? 0 : leaseMillis(lease.timeoutNanos);
            for (String key : joined(lease)) {
                ownerships.add(new Ownership(key, lease.ownerId, millis));
            }
        }
        if (ownerships.isEmpty()) {
            return;
        }
        long sent = clock.nanoTime();
        Set<String> lost;
        Set<String> unreached = Set.of();
        try {
            lost = store.renewShared(ownerships);
        } catch (PartlyUnavailableException e) {
            lost = e.lost();
            unreached = e.unreached();
        } catch (LockUnavailableException e) {
            LOG.log(Level.WARNING, () -> "could not renew " + leases.size() + " shared or counted leases in the lock"
                    + " store; trying again at the next pass while their confirmed leases last", e);
            return;
        }
        long answered = clock.nanoTime();
        for (SharedLease lease : leases) {
            List<String> keys = joined(lease);
            if (keys.stream().anyMatch(lost::contains)) {
                lease.markLost();
            } else if (keys.stream().noneMatch(unreached::contains)) {
                lease.renewed(sent, answered);
            }
        }
    }

    /**
     * Places {@code waiter}'s ticket in the store's queues of {@code keys} (it waits in this node's table, and
     * keeps its place across nodes meanwhile), or refreshes it there. Best effort: a store that cannot be
     * reached only costs the waiter its place.
     */
    void enqueue(Waiter waiter, List<String> keys) {
        if (waiter.remoteKeys.containsAll(keys)
                && clock.nanoTime() - waiter.remotePlacedNanos < TICKET_REFRESH_NANOS) {
            return; // placed there lately: no round trip for every wake-up in this node's table
        }
        try {
            long order = store.enqueue(keys, ticket(waiter), waiter.storeWaitNanos(clock.nanoTime()));
            if (order > 0) {
                placed(waiter, order, keys);
                ticketsMoved(waiter);
            }
        } catch (RuntimeException e) { // best effort: the acquire goes on, only its place is lost
            // it may be placed in some of the queues (a store spread over shards): its removal covers them
            waiter.remoteKeys.addAll(keys);
            LOG.log(Level.DEBUG, () -> "could not queue a waiter for " + keys + " in the lock store", e);
        }
    }

    /**
     * Refreshes {@code waiter}'s ticket, if it is placed, once a third of its lease has passed. A store that
     * refreshes many tickets in one call ({@link RemoteLockStore#refreshesTickets}) gets, with it, every other ticket
     * of this node that has passed half of that: whatever the number of waiters, a node then refreshes its tickets
     * in about two calls per ticket lease, instead of one per waiter per third of it (1,000 waiters on MariaDB spent
     * 55 of their 70 statements per acquisition refreshing tickets).
     */
    void refresh(Waiter waiter) {
        if (waiter.remoteKeys.isEmpty() || clock.nanoTime() - lastTouched(waiter) < TICKET_REFRESH_NANOS) {
            return;
        }
        if (!store.refreshesTickets()) {
            enqueue(waiter, List.copyOf(waiter.remoteKeys));
        } else if (refreshing.tryLock()) { // else another waiter's refresh is under way, and takes this one along
            try {
                refreshQueued();
            } finally {
                refreshing.unlock();
            }
        }
    }

    private void refreshQueued() {
        long sent = clock.nanoTime();
        List<Waiter> due = new ArrayList<>();
        List<RemoteLockStore.Queued> tickets = new ArrayList<>();
        for (Waiter waiter : queued) {
            List<String> keys = waiter.queuedKeys;
            if (!keys.isEmpty() && sent - lastTouched(waiter) >= TICKET_REFRESH_NANOS / 2) {
                due.add(waiter);
                tickets.add(new RemoteLockStore.Queued(keys, waiter.remoteId));
            }
        }
        if (tickets.isEmpty()) {
            return;
        }
        try {
            store.refreshTickets(tickets, TICKET_LEASE_MILLIS);
        } catch (RuntimeException e) { // best effort: the tickets expire, their waiters only lose their places
            LOG.log(Level.DEBUG, () -> "could not refresh " + tickets.size() + " waiters' tickets in the lock store",
                    e);
            return;
        }
        for (Waiter waiter : due) {
            waiter.remoteRefreshedNanos = sent; // as enqueue: dated before the call, never later than the store's
        }
    }

    /** When {@code waiter}'s ticket was last placed or extended in the store. */
    private static long lastTouched(Waiter waiter) {
        long placed = waiter.remotePlacedNanos;
        long refreshed = waiter.remoteRefreshedNanos;
        return refreshed - placed > 0 ? refreshed : placed;
    }

    /** {@code waiter}'s ticket moved in the store: {@link OwnTickets} follows. */
    private void ticketsMoved(Waiter waiter) {
        if (ownTickets != null && waiter != null) {
            ownTickets.moved(waiter);
        }
    }

    /**
     * What keeps {@code waiter} (a newcomer when {@code null}) out of {@code key} before it touches this node's
     * table: an older ticket of this node waiting there, which the store would refuse it for ({@link OwnTickets}).
     */
    Blocker olderTicket(String key, Waiter waiter) {
        return ownTickets == null ? null : ownTickets.olderAt(key, waiter);
    }

    /** {@code waiter}'s tickets are no longer where {@link #placed} put them all: the node's refresh follows. */
    private void unqueuedFrom(Waiter waiter) {
        waiter.queuedKeys = List.copyOf(waiter.remoteKeys);
        if (waiter.remoteKeys.isEmpty()) {
            queued.remove(waiter);
        }
    }

    /**
     * Takes {@code waiter}'s ticket out of the store's queues of every one of its keys, once it was placed in any: it
     * gave up (or got its keys). Every key, not only those this node knows it was placed at: a store spread over
     * slots takes them in its own order, and queues a blocked waiter again on the keys it took and gave back, which
     * may sort after the key in its way (such a ticket, left to expire, refused every newcomer to its key until then).
     * Unreachable: retried in the background until the ticket expires.
     */
    void dequeue(Waiter waiter) {
        if (waiter.remoteKeys.isEmpty()) {
            return;
        }
        List<String> keys = List.of(waiter.keys);
        waiter.remoteKeys.clear();
        unqueuedFrom(waiter);
        ticketsMoved(waiter);
        try {
            store.dequeue(keys, waiter.remoteId, waiter.storeWaitNanos(clock.nanoTime()));
        } catch (LockUnavailableException | StoreBusyException e) { // in a finally: never hides what ended the wait
            Set<String> unreached = StoreRetries.unreached(e);
            List<String> left = unreached == null ? keys : keys.stream().filter(unreached::contains).toList();
            LOG.log(Level.DEBUG, () -> "could not take a waiter for " + left + " out of the lock store's queues; "
                    + "retrying in the background until it gets through or the ticket expired", e);
            retries.dequeue(left, waiter.remoteId, clock.nanoTime() + TICKET_LEASE_MILLIS * 1_000_000);
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "could not take a waiter for " + keys + " out of the lock store's queues; "
                    + "its ticket expires", e);
        }
    }

    /**
     * How long a waiter's ticket counts in the store unless refreshed, and when it is refreshed: short, so that a
     * ticket whose removal was lost (its shard failed over, say) holds newcomers up for seconds at most.
     */
    static final long TICKET_LEASE_MILLIS = 3_000;
    static final long TICKET_REFRESH_NANOS = TICKET_LEASE_MILLIS * 1_000_000 / 3;

    private RemoteLockStore.Ticket ticket(Waiter waiter) {
        if (waiter.remoteId == null) {
            waiter.remoteId = newOwnerId();
        }
        return new RemoteLockStore.Ticket(waiter.remoteId, waiter.remoteOrder, TICKET_LEASE_MILLIS);
    }

    private void placed(Waiter waiter, long order, List<String> keys) {
        if (waiter.remoteOrder != order) {
            waiter.remoteOrder = order;
            queues.changed(waiter); // the store lets it in by this order: its queues' leads may change
        }
        waiter.remoteKeys.addAll(keys);
        waiter.remotePlacedNanos = clock.nanoTime();
        waiter.remoteRefreshedNanos = waiter.remotePlacedNanos; // (so that lastTouched compares two times)
        waiter.queuedKeys = List.copyOf(waiter.remoteKeys);
        queued.add(waiter);
    }

    /**
     * Releases entries whose last local hold went. When the store cannot be reached, the release is retried
     * in the background, with back-off, until it succeeds or the leases ran out (SPEC section 3), so that a
     * short outage does not keep the keys blocked for a whole lock timeout; the store's release is
     * conditional on the owner, so a late retry never frees a key that is someone else's by then.
     *
     * @return the keys the store says their owner no longer held
     */
    Set<String> release(Collection<LockEntry> entries) {
        if (entries.isEmpty()) {
            return Set.of();
        }
        try {
            return store.release(ownerships(entries));
        } catch (LockUnavailableException e) {
            Set<String> unreached = StoreRetries.unreached(e);
            List<LockEntry> left = entries.stream()
                    .filter(entry -> unreached == null || unreached.contains(entry.key())).toList();
            if (maintenance.isClosed()) { // the registry is closing: nothing is left to retry it
                LOG.log(Level.WARNING, () -> "could not release " + Keys.describe(keys(left))
                        + " in the lock store; they expire after their lease", e);
            } else {
                LOG.log(Level.WARNING, () -> "could not release " + Keys.describe(keys(left)) + " in the lock store;"
                        + " retrying in the background until it succeeds or their lease ran out", e);
                for (LockEntry entry : left) { // an infinite lock timeout: the store's lease, renewed no more
                    long expires = entry.expiresNanos();
                    retries.release(ownerships(List.of(entry)), expires == Long.MAX_VALUE
                            ? clock.nanoTime() + infiniteLeaseMillis * 1_000_000 : expires);
                }
            }
            return e instanceof PartlyUnavailableException partly ? partly.lost() : Set.of();
        }
    }

    /**
     * Releases entries whose last local hold went, some of them before their hold-at-least time: the store keeps
     * those locked until then by its clock ({@link RemoteLockStore#releaseHeld}), and this node calls it again
     * for them when the store says they free themselves, so that their waiters on every node are told then (a
     * timer per closed lease, not a poll per waiter; should that call not get through, waiters still find the key
     * free at their retry interval). A store that cannot be reached is tried again in the background, with
     * back-off, until it gets through or the leases ran out, as a release: never a plain release, which would
     * free the keys early.
     *
     * @return the keys the store says their owner no longer held
     */
    Set<String> releaseHeld(Collection<LockEntry> entries, LockTable table) {
        long deadline = clock.nanoTime() + infiniteLeaseMillis * 1_000_000;
        List<Ownership> ownerships = new ArrayList<>(entries.size());
        for (LockEntry entry : entries) {
            long expires = entry.expiresNanos();
            if (expires != Long.MAX_VALUE && expires - deadline > 0) {
                deadline = expires;
            }
            long until = table.holdUntilNanos(entry);
            long hold = until == 0 ? 0 : Math.max(1, Nanos.toMillisRoundedUp(until - entry.acquiredNanos()));
            ownerships.add(new Ownership(entry.key(), entry.ownerId(), 0, hold));
        }
        return releaseHeld(ownerships, deadline, FIRST_RETRY_NANOS);
    }

    private Set<String> releaseHeld(List<Ownership> ownerships, long deadlineNanos, long retryNanos) {
        RemoteLockStore.Held held;
        try {
            held = store.releaseHeld(ownerships);
        } catch (LockUnavailableException e) {
            Set<String> unreached = StoreRetries.unreached(e);
            List<Ownership> left = ownerships.stream()
                    .filter(ownership -> unreached == null || unreached.contains(ownership.key())).toList();
            if (maintenance.isClosed() || clock.nanoTime() + retryNanos - deadlineNanos >= 0) {
                LOG.log(Level.WARNING, () -> "could not release " + Keys.describe(keysOf(left)) + " in the lock store;"
                        + " they free themselves when their lease or their holdAtLeast ends", e);
            } else {
                LOG.log(Level.WARNING, () -> "could not release " + Keys.describe(keysOf(left)) + " in the lock store;"
                        + " retrying in the background until it succeeds or their lease ran out", e);
                maintenance.after(retryNanos,
                        () -> releaseHeld(left, deadlineNanos, Math.min(2 * retryNanos, MAX_RETRY_NANOS)));
            }
            return e instanceof PartlyUnavailableException partly ? partly.lost() : Set.of();
        }
        Map<Long, List<Ownership>> byDelay = new HashMap<>();
        for (Ownership ownership : ownerships) {
            Long millis = held.heldMillis().get(ownership.key());
            if (millis != null) {
                byDelay.computeIfAbsent(millis, m -> new ArrayList<>()).add(ownership);
            }
        }
        byDelay.forEach((millis, due) -> maintenance.after(millis * 1_000_000, () -> endHold(due)));
        return held.lost();
    }

    /** The hold-at-least time of these keys has come by the store's clock: they are freed, and their waiters told. */
    private void endHold(List<Ownership> due) {
        try {
            releaseHeld(due, clock.nanoTime(), MAX_RETRY_NANOS); // not tried again: they expire by themselves
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "could not end the hold of " + Keys.describe(keysOf(due)), e);
        }
    }

    private static List<String> keysOf(List<Ownership> ownerships) {
        return ownerships.stream().map(Ownership::key).toList();
    }

    /**
     * An acquire that failed part-way could not be undone on {@code unreached} of its keys (a shard could not be
     * reached): they are released in the background until it gets through or their lease would have run out.
     */
    private void undoLater(List<String> keys, Set<String> unreached, String ownerId, long timeoutNanos,
            boolean shared) {
        List<Ownership> left = new ArrayList<>(unreached.size());
        for (String key : keys) {
            if (unreached.contains(key)) {
                left.add(new Ownership(key, ownerId, 0));
            }
        }
        if (!left.isEmpty()) {
            long leaseNanos = timeoutNanos == Nanos.NEVER ? infiniteLeaseMillis * 1_000_000 : timeoutNanos;
            if (shared) {
                retries.releaseShared(left, clock.nanoTime() + leaseNanos);
            } else {
                retries.release(left, clock.nanoTime() + leaseNanos);
            }
        }
    }

    /**
     * Renews live entries in the store, and moves each lease forward only as far as the store confirmed it:
     * to the time the renewal was sent plus its timeout, and only if the answer came before the lease ran
     * out (SPEC section 3, "A lease is only as long as the backend confirmed it"). Entries the store says
     * their owner no longer holds are marked lost. An unreachable store confirms nothing: the leases keep
     * their confirmed end, and the renewal is tried again in the background, with a short back-off, until it
     * gets through or their confirmed lease has run out (a lease that ran out is never revived): one failed
     * round trip, or a slow one that returned close to the end of the lease, must not cost a live holder its
     * keys while the store is reachable again before then.
     */
    void renew(List<LockEntry> entries, LockTable table) {
        renew(entries, table, FIRST_RETRY_NANOS);
    }

    private void renew(List<LockEntry> entries, LockTable table, long nextRetryNanos) {
        long sent = clock.nanoTime();
        Set<String> lost;
        Set<String> unreached = Set.of();
        try {
            lost = store.renew(ownerships(entries));
        } catch (PartlyUnavailableException e) { // the keys on the shards it reached are renewed
            LOG.log(Level.WARNING, () -> "could not renew " + e.unreached().size() + " of " + entries.size()
                    + " locks in the lock store; trying those again until it gets through or their confirmed"
                    + " leases have run out", e);
            lost = e.lost();
            unreached = e.unreached();
            Set<String> retried = unreached;
            retryRenew(entries.stream().filter(entry -> retried.contains(entry.key())).toList(), table,
                    nextRetryNanos);
        } catch (LockUnavailableException e) {
            LOG.log(Level.WARNING, () -> "could not renew " + entries.size() + " locks in the lock store; "
                    + "trying again until it gets through or their confirmed leases have run out", e);
            retryRenew(List.copyOf(entries), table, nextRetryNanos);
            return;
        }
        long answered = clock.nanoTime();
        for (LockEntry entry : entries) {
            if (unreached.contains(entry.key())) {
                continue;
            }
            if (lost.contains(entry.key())) {
                entry.markLost();
            } else {
                table.renew(entry, sent, answered);
            }
        }
    }

    /**
     * Renews again, after {@code delayNanos}, those of {@code entries} that are still in the table, not lost,
     * and whose confirmed lease has not run out; the pause doubles up to {@link #MAX_RETRY_NANOS}.
     */
    private void retryRenew(List<LockEntry> entries, LockTable table, long delayNanos) {
        maintenance.after(delayNanos, () -> {
            long now = clock.nanoTime();
            List<LockEntry> left = entries.stream()
                    .filter(entry -> !entry.isLost() && !entry.isExpired(now) && table.get(entry.key()) == entry)
                    .toList();
            if (!left.isEmpty()) {
                renew(left, table, Math.min(2 * delayNanos, MAX_RETRY_NANOS));
            }
        });
    }

    /** Every lock in the store; this node's stale ones (dead owner) flagged from the table. */
    List<HeldLock> heldLocks(int batchSize, int limit, LockTable table) {
        Instant now = clock.instant();
        long nowNanos = clock.nanoTime();
        List<HeldLock> held = new ArrayList<>();
        for (RemoteLock lock : store.scan(batchSize, limit)) {
            held.add(toHeldLock(lock, table, now, nowNanos));
        }
        held.sort(Comparator.comparing(HeldLock::key));
        // a key held shared or by permits is a row per holder: a store may read past the limit with its last key
        return held.size() > limit ? List.copyOf(held.subList(0, limit)) : held;
    }

    Optional<HeldLock> heldLock(String key, LockTable table) {
        RemoteLock lock = store.get(key);
        return lock == null ? Optional.empty()
                : Optional.of(toHeldLock(lock, table, clock.instant(), clock.nanoTime()));
    }

    boolean forceRelease(String key) {
        return store.forceRelease(key);
    }

    private HeldLock toHeldLock(RemoteLock lock, LockTable table, Instant now, long nowNanos) {
        LockEntry local = table.get(lock.key());
        boolean staleHere = local != null && lock.ownerId().equals(local.ownerId())
                && local.staleReason(nowNanos) != null;
        return new HeldLock(lock.key(), lock.ownerDescription(), lock.token(), lock.acquiredAt(), lock.expiresAt(),
                staleHere || !lock.expiresAt().isAfter(now));
    }

    @Override
    public void close() {
        store.close();
    }

    private static List<Ownership> ownerships(Collection<LockEntry> entries) {
        List<Ownership> ownerships = new ArrayList<>(entries.size());
        for (LockEntry entry : entries) {
            long lease = entry.timeoutNanos() == Long.MAX_VALUE ? 0 : leaseMillis(entry.timeoutNanos());
            ownerships.add(new Ownership(entry.key(), entry.ownerId(), lease));
        }
        return ownerships;
    }

    private static List<String> keys(Collection<LockEntry> entries) {
        return entries.stream().map(LockEntry::key).toList();
    }

    /** Whole milliseconds, rounded up; 0 for no expiry. */
    static long leaseMillis(long timeoutNanos) {
        return timeoutNanos == Nanos.NEVER ? 0 : Math.max(1, Nanos.toMillisRoundedUp(timeoutNanos));
    }

    /** With notification off, a waiter simply sleeps its (jittered) retry interval. */
    private static Blocker polling(String key) {
        return Blocker.of(key, () -> false); // no notification: it sleeps its whole pause
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown-host";
        }
    }
}
