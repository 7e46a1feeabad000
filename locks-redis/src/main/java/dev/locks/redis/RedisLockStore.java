package dev.locks.redis;

import dev.locks.LockUnavailableException;
import dev.locks.spi.PartlyUnavailableException;
import dev.locks.spi.RemoteLockStore;
import dev.locks.support.StoreKeys;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The {@link RemoteLockStore} on Redis, through the application's {@link RedisConnectionFactory}.
 *
 * <p>Data, under the key prefix ({@link KeySpace}): one string per held key at {@code <prefix>lock:<key>}
 * holding the lease's owner id, its fencing token, when it was taken (microseconds by the server's clock),
 * whether its lock timeout is infinite and its owner's readable description ({@code lock-value.lua}), set with
 * the lease ({@code SET PX}; for an infinite lock timeout, the node's renewed lease); while someone waits for a key, its wait queue at {@code <prefix>queue:<key>} (ticket ids
 * by order) and the tickets' deadlines at {@code <prefix>queue-until:<key>}; the fencing counter
 * {@code <prefix>fencing}, which orders the tickets too; the channel {@code <prefix>released}, on which a
 * release publishes the keys it freed that someone waits for (a live ticket is queued). A release nobody waits
 * for publishes nothing: the common, uncontended release costs no broadcast to every node.
 *
 * <p>Server work: an uncontended cycle (nobody waits) runs, inside its two script calls, {@code TIME}, one
 * {@code EXISTS} of all the keys and their queues, one {@code GETSET} setting the counter to the server's clock
 * (the token's floor) and reading its old value (a second {@code SET} only when the counter was not below the
 * clock), and a {@code SET PX} per key to acquire, and one {@code MGET}, one {@code DEL} and one {@code EXISTS}
 * of the queues to release: 9 commands for one key, 13 for five (pinned in {@code RoundTripCountTest}). Purging expired tickets, the queues and the publish run only when a
 * queue exists.
 *
 * <p>Round trips: {@link #tryAcquire}, {@link #release}, {@link #renew}, {@link #get}, {@link #enqueue},
 * {@link #dequeue} and {@link #forceRelease} are one script call each ({@link LockScripts}), whatever the number of keys;
 * {@link #scan} is one {@code SCAN} per batch plus one script call reading the batch.
 *
 * <p>On a Redis Cluster (the factory's connections are {@link RedisClusterConnection}s) a script may only touch
 * one hash slot: the store's own keys carry a hash tag of their lock key's slot, with one fencing counter per
 * slot ({@link KeySpace#forCluster(boolean)}), and every multi-key method runs once per slot touched, in ascending
 * slot order. An acquire over {@code s > 1} slots is {@code s} acquire calls (a blocked one gives back the
 * slots already taken, in the same attempt): the fencing raise is part of each slot's script. Only when a
 * later slot's counter had already passed the first slot's token does each slot below the lease's token take
 * one more call, raising its counter (see {@code acquireSlots}). One slot is one call, as on one server.
 * {@link #scan} runs {@code SCAN} on each master and reads each batch's keys slot by slot.
 *
 * <p>Every method throws {@link LockUnavailableException}, naming what failed, when Redis cannot be reached
 * or does not answer within the client's command timeout or the store's timeout ({@code locks.redis.timeout}),
 * whichever is shorter: every round trip is bounded by the latter ({@link RedisRoundTrip}).
 */
final class RedisLockStore implements RemoteLockStore {

    private static final System.Logger LOG = System.getLogger(RedisLockStore.class.getName());

    /** The most tickets' keys one {@code refresh.lua} call extends (the script runs alone on the server). */
    private static final int REFRESH_BATCH = 1_000;

    private final RedisConnectionFactory factory;
    /** {@link #factory} for the store's commands: getting a connection is not part of a round trip's timeout. */
    private final RedisConnectionFactory commands;
    private final StringRedisTemplate redis;
    private final CycleScripts cycle;
    private volatile KeySpace space;
    /** Whether the factory's connections are a Redis Cluster's; null until the first command finds out. */
    private volatile Boolean cluster;
    private final boolean notify;
    private final String prefixBytes;
    private final long infiniteLeaseMillis;
    private final RedisRoundTrip roundTrip;
    private volatile ReleaseSubscription subscription;
    /** On a Redis Cluster through Lettuce, refreshes the client's view after a failure; else null. */
    private volatile ClusterViewRefresh view;
    /** On a cluster, the threads that send a multi-slot release, renewal or ticket removal's slots at once. */
    private final ExecutorService slotThreads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "locks-redis-slots");
        thread.setDaemon(true);
        return thread;
    });

    /** A store whose infinite lock timeouts are held under the default lease ({@link RedisLockRegistry.Builder#lease}). */
    RedisLockStore(RedisConnectionFactory factory, String keyPrefix, boolean notify) {
        this(factory, keyPrefix, notify, RedisLockRegistry.DEFAULT_LEASE.toMillis(), RedisRoundTrip.DEFAULT_TIMEOUT);
    }

    /**
     * @param keyPrefix the storage namespace of every key ({@code "locks:"} by default)
     * @param notify whether {@link #subscribe} subscribes (else waiters poll)
     * @param infiniteLeaseMillis the lease of a lock of infinite lock timeout, renewed by its node (> 0)
     * @param timeout the longest any one round trip may take ({@code locks.redis.timeout}, > 0)
     */
    RedisLockStore(RedisConnectionFactory factory, String keyPrefix, boolean notify, long infiniteLeaseMillis,
            Duration timeout) {
        if (infiniteLeaseMillis <= 0) {
            throw new IllegalArgumentException("lease must be > 0, was " + infiniteLeaseMillis + " ms");
        }
        this.infiniteLeaseMillis = infiniteLeaseMillis;
        this.roundTrip = new RedisRoundTrip(timeout);
        this.factory = Objects.requireNonNull(factory, "connectionFactory");
        this.commands = RedisRoundTrip.connectingUntimed(factory);
        this.redis = new StringRedisTemplate(commands);
        this.cycle = new CycleScripts(factory, commands);
        this.space = new KeySpace(keyPrefix);
        this.notify = notify;
        this.prefixBytes = Integer.toString(space.lockPrefixBytes());
    }

    KeySpace keySpace() {
        return space;
    }

    /**
     * Whether the factory connects to a Redis Cluster (asked once, on the first command: getting a connection
     * sends no command); on a cluster the key space takes its cluster names ({@link KeySpace#forCluster(boolean)}).
     */
    private boolean onCluster() {
        Boolean known = cluster;
        if (known == null) {
            synchronized (this) {
                known = cluster;
                if (known == null) {
                    known = call(() -> "connect", () -> ClusterSlots.isCluster(commands));
                    if (known) {
                        boolean sharded = call(() -> "connect", () -> ClusterSlots.shardedPubSub(factory));
                        space = space.forCluster(sharded);
                        if (sharded) { // Lettuce's client
                            view = ClusterViewRefresh.of(factory);
                        }
                        LOG.log(Level.INFO, () -> "Redis lock store (key prefix '" + space.prefix() + "') runs on a"
                                + " Redis Cluster: multi-key acquires take their keys slot by slot, in ascending slot"
                                + " order, one round trip per slot");
                    }
                    cluster = known;
                }
            }
        }
        return known;
    }

    /** {@code keys} grouped by slot in ascending slot order: one group of all of them off a cluster. */
    private List<List<String>> groups(List<String> keys) {
        return onCluster() ? ClusterSlots.bySlot(keys, space::lock) : List.of(keys);
    }

    /** {@code command} once per slot of {@code keys} (once off a cluster): the union of the keys it says were lost. */
    private Set<String> perSlot(List<Ownership> keys, Function<List<Ownership>, Set<String>> command) {
        return onCluster() ? eachSlot(keys, Ownership::key, command) : command.apply(keys);
    }

    /**
     * On a cluster, {@code command} once per slot of {@code items}, each slot on its own: the slots go out at once
     * (each but the first on a thread of {@link #slotThreads}), so that a shard that fails, or does not answer
     * until the command timeout, holds up none of the others, whose keys are released or renewed whatever it
     * does. The union of the keys the calls say were lost; when some slots' calls failed, a
     * {@link PartlyUnavailableException} naming their keys (and the lost ones of the others), for the engine to
     * retry only those. One slot is one call on this thread, and its failure a plain one.
     */
    private <T> Set<String> eachSlot(List<T> items, Function<T, String> keyOf, Function<List<T>, Set<String>> command) {
        List<List<T>> groups = ClusterSlots.bySlot(items, item -> space.lock(keyOf.apply(item)));
        if (groups.size() == 1) {
            return command.apply(groups.get(0));
        }
        List<CompletableFuture<Set<String>>> others = new ArrayList<>(groups.size() - 1);
        for (List<T> group : groups.subList(1, groups.size())) {
            others.add(CompletableFuture.supplyAsync(() -> command.apply(group), this::onSlotThread));
        }
        Set<String> lost = new LinkedHashSet<>();
        Set<String> unreached = new LinkedHashSet<>();
        LockUnavailableException failure = null;
        for (int i = 0; i < groups.size(); i++) {
            try {
                lost.addAll(i == 0 ? command.apply(groups.get(0)) : others.get(i - 1).join());
            } catch (LockUnavailableException | CompletionException e) {
                if (!(e instanceof LockUnavailableException) && !(e.getCause() instanceof LockUnavailableException)) {
                    throw e.getCause() instanceof RuntimeException cause ? cause : e;
                }
                failure = failure != null ? failure
                        : (LockUnavailableException) (e instanceof LockUnavailableException ? e : e.getCause());
                groups.get(i).forEach(item -> unreached.add(keyOf.apply(item)));
            }
        }
        if (failure != null) {
            throw new PartlyUnavailableException(failure.getMessage() + " (" + unreached.size() + " of "
                    + items.size() + " keys; those on the other shards were done)", failure, unreached, lost);
        }
        return lost;
    }

    /** Runs a slot's call on a thread of {@link #slotThreads}; on the caller's once the store is closed. */
    private void onSlotThread(Runnable call) {
        try {
            slotThreads.execute(call);
        } catch (RejectedExecutionException closed) {
            call.run();
        }
    }

    @Override
    public Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis) {
        return tryAcquire(keys, owner, leaseMillis, null);
    }

    @Override
    public Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis, Ticket ticket) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("no keys to acquire");
        }
        if (leaseMillis < 0) {
            throw new IllegalArgumentException("leaseMillis must be >= 0 (0 = no expiry), was " + leaseMillis);
        }
        return acquire(keys, owner, leaseMillis, ticket, 0);
    }

    /** An exclusive ({@code permits} 0), shared or counted acquire, slot by slot on a cluster. */
    private Attempt acquire(List<String> keys, Owner owner, long leaseMillis, Ticket ticket, int permits) {
        List<List<String>> groups = groups(keys);
        Attempt attempt = groups.size() == 1 ? acquireGroup(keys, keys, owner, leaseMillis, ticket, 0, true, permits)
                : acquireSlots(keys, groups, owner, leaseMillis, ticket, permits);
        if (!attempt.isTaken() && attempt.heldKey() != null && attempt.heldPermits() == 0) {
            awaitingNotice(attempt.heldKey());
        }
        return attempt;
    }

    @Override
    public boolean holdsShared() {
        return true;
    }

    /** Every ticket counts in the scripts' queues, this node's own too. */
    @Override
    public boolean queuesOwnWaiters() {
        return true;
    }

    /**
     * {@code shared-acquire.lua}: each key a sorted set of its holders' locks (each with its own owner, token and
     * expiry), beside the exclusive locks' strings, in the same queues and with the same fencing counter; on a
     * cluster slot by slot as an exclusive acquire.
     */
    @Override
    public Attempt tryAcquireShared(List<String> keys, Owner owner, long leaseMillis, int permits, Ticket ticket,
            long waitNanos) {
        StoreKeys.requireSharedAcquire(keys, permits);
        return acquire(keys, owner, leaseMillis, ticket, permits);
    }

    @Override
    public Set<String> releaseShared(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        return perSlot(keys, group -> releaseGroup(group, LockScripts.SHARED_RELEASE));
    }

    @Override
    public Set<String> renewShared(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        return perSlot(keys, group -> renewGroup(group, LockScripts.SHARED_RENEW));
    }

    /**
     * This node may wait for the release notice of {@code key}: with sharded pub/sub its subscription takes
     * the channel of the key's slot from now on ({@link ReleaseSubscription#want}).
     */
    private void awaitingNotice(String key) {
        ReleaseSubscription subscribed = subscription;
        if (subscribed != null && space.sharded()) {
            subscribed.want(space.releaseChannel(key));
        }
    }

    /**
     * A multi-slot acquire on a Redis Cluster: the slots' groups one after the other in ascending slot order
     * (one global order, so two acquirers never hold a part each of what the other needs while waiting: a
     * blocked acquire gives back what it took), each group one script call on its shard, all-or-nothing
     * overall.
     *
     * <p>Fencing, one round trip per slot as a rule. The invariant: a slot's counter is at least every token
     * issued in that slot so far, and at least every token handed out for a key of that slot (each script
     * raises the counter to what it issues; see below for the lease's other slots). The first group gets a
     * token above its counter and at least the server's clock, as one slot's acquire does; each later group
     * gets a token above its own counter and at least the first's, which is the first's itself unless that
     * counter is already there, and its script raises the counter to it. The lease's token T is the greatest of
     * the groups' tokens: above every counter it met, so above every earlier token of each of its keys (SPEC
     * 3). Each group whose token is below T (a counter ran ahead: an acquire there meanwhile, or that master's
     * clock ahead of the first's) then has its counter raised to T, one more round trip, before T is handed
     * out, so that a later lease of a key there gets more: the invariant holds again. A later group's token
     * does not follow its own server's clock (that would put every later group ahead of the first): it follows
     * the first group's, so a failover that loses a counter's last increments still finds it re-seeded above
     * T by the clock, within the masters' clock skew, as on one slot.
     */
    private Attempt acquireSlots(List<String> keys, List<List<String>> groups, Owner owner, long leaseMillis,
            Ticket ticket, int permits) {
        long token = 0;
        long order = ticket == null ? 0 : ticket.order();
        List<List<String>> taken = new ArrayList<>(groups.size());
        long[] tokens = new long[groups.size()];
        try {
            for (List<String> group : groups) {
                Attempt attempt = acquireGroup(keys, group, owner, leaseMillis,
                        ticket == null ? null : new Ticket(ticket.id(), order, ticket.leaseMillis()),
                        taken.isEmpty() ? 0 : token - 1, taken.isEmpty(), permits);
                if (!attempt.isTaken()) {
                    giveBack(taken, owner, permits, attempt.heldPermits() != 0 || ticket == null ? null
                            : new Ticket(ticket.id(), attempt.ticketOrder(), ticket.leaseMillis()));
                    return attempt;
                }
                tokens[taken.size()] = attempt.token();
                token = Math.max(token, attempt.token());
                taken.add(group);
            }
            for (int i = 0; i < taken.size(); i++) {
                if (tokens[i] < token && !raise(taken.get(i), token, owner, permits)) {
                    giveBack(taken, owner, permits, null); // its lease ran out before the acquire ended
                    return Attempt.heldBy(taken.get(i).get(0), order);
                }
            }
            return Attempt.taken(token);
        } catch (DataAccessException e) {
            throw undone(keys, unavailable("acquire " + StoreKeys.describe(keys), e));
        }
    }

    /** Raises the counter of {@code group}'s slot to {@code token}, and its locks' tokens: whether all are still held. */
    private boolean raise(List<String> group, long token, Owner owner, int permits) {
        List<String> scriptKeys = new ArrayList<>(group.size() + 1);
        scriptKeys.add(space.fencingCounter(group.get(0)));
        for (String key : group) {
            scriptKeys.add(space.lock(key));
        }
        String value = Long.toString(token);
        Long held = roundTrip.repeatable(() -> redis.execute(LockScripts.RAISE, scriptKeys, value, owner.id(),
                permits == 0 ? "0" : "1"));
        return held != null && held == group.size();
    }

    /**
     * Releases the groups a multi-slot acquire took (every slot on its own: a failing shard's keys throw, for the
     * engine to release later), and queues its ticket (if any) there again, best effort: a ticket not placed
     * only loses its place.
     */
    private void giveBack(List<List<String>> taken, Owner owner, int permits, Ticket ticket) {
        if (taken.isEmpty()) {
            return;
        }
        List<String> keys = taken.stream().flatMap(List::stream).toList();
        try {
            if (permits == 0) {
                release(ownerships(keys, owner));
            } else {
                releaseShared(ownerships(keys, owner));
            }
        } catch (PartlyUnavailableException e) {
            throw e;
        } catch (LockUnavailableException e) { // one slot, unreached: the engine releases it later
            throw new PartlyUnavailableException(e.getMessage(), e, new LinkedHashSet<>(keys), Set.of());
        }
        if (ticket != null && ticket.order() > 0) {
            for (List<String> group : taken) {
                try {
                    enqueue(group, ticket);
                } catch (LockUnavailableException placeLost) {
                    LOG.log(Level.DEBUG, () -> "could not queue a waiter for " + StoreKeys.describe(group) + " again",
                            placeLost);
                }
            }
        }
    }

    /**
     * One acquire script call for {@code group}, keys of one slot (all of {@code keys} off a cluster); an
     * interrupted or failed call is undone for {@code keys}, the whole acquire.
     *
     * @param floor the token is above it (0 for none)
     * @param clock whether the token is at least the server's clock in microseconds (the first, or only, group
     *        of an acquire): a failover to a replica that lacks the counter's last increments still issues
     *        tokens above them, within the clocks' skew, on one server as on a Cluster
     */
    private Attempt acquireGroup(List<String> keys, List<String> group, Owner owner, long leaseMillis, Ticket ticket,
            long floor, boolean clock, int permits) {
        List<String> scriptKeys = new ArrayList<>(3 * group.size() + 1);
        scriptKeys.addAll(lockAndQueueKeys(group));
        scriptKeys.add(space.fencingCounter(group.get(0)));
        Object[] args = new Object[permits == 0 ? 11 : 12];
        args[0] = owner.id();
        args[1] = owner.description();
        args[2] = Long.toString(leaseMillis == 0 ? infiniteLeaseMillis : leaseMillis);
        args[3] = leaseMillis == 0 ? "1" : "0";
        args[4] = ticket == null ? "" : ticket.id();
        args[5] = ticket == null ? "0" : Long.toString(ticket.order());
        args[6] = ticket == null ? "0" : Long.toString(ticket.leaseMillis());
        args[7] = space.releaseChannel(group.get(0));
        args[8] = prefixBytes;
        args[9] = floor == 0 ? "0" : Long.toString(floor);
        args[10] = clock ? "1" : "0";
        if (permits != 0) {
            args[11] = Integer.toString(permits); // shared-acquire.lua's ARGV[12]
        }
        List<?> result;
        try {
            result = roundTrip.call(() -> cycle.call(script(permits == 0 ? LockScripts.ACQUIRE
                    : LockScripts.SHARED_ACQUIRE), scriptKeys, args),
                    () -> releaseQuietly(group, owner, permits));
        } catch (DataAccessException e) {
            throw undone(keys, unavailable("acquire " + StoreKeys.describe(keys), e));
        }
        long code = (Long) result.get(0);
        if (code > 0) {
            return Attempt.taken(code);
        }
        String heldKey = group.get((int) -code - 1);
        return result.size() > 2 ? Attempt.mismatch(heldKey, ((Long) result.get(2)).intValue())
                : Attempt.heldBy(heldKey, result.size() > 1 ? (Long) result.get(1) : 0);
    }

    @Override
    public long enqueue(List<String> keys, Ticket ticket) {
        if (keys.isEmpty()) {
            return ticket.order();
        }
        long order = ticket.order();
        for (List<String> group : groups(keys)) { // the first slot's counter orders the ticket; the others keep it
            awaitingNotice(group.get(0));
            List<String> scriptKeys = new ArrayList<>(2 * group.size() + 1);
            for (String key : group) {
                scriptKeys.add(space.queue(key));
            }
            for (String key : group) {
                scriptKeys.add(space.queueDeadlines(key));
            }
            scriptKeys.add(space.fencingCounter(group.get(0)));
            String placed = Long.toString(order);
            order = call(() -> "queue a waiter for " + StoreKeys.describe(keys), () -> redis.execute(LockScripts.ENQUEUE,
                    scriptKeys, ticket.id(), placed, Long.toString(ticket.leaseMillis())));
        }
        return order;
    }

    @Override
    public boolean refreshesTickets() {
        return true;
    }

    /**
     * One script call ({@code refresh.lua}) per {@value #REFRESH_BATCH} tickets' keys, per slot on a cluster: a
     * node's refresh costs a few calls per ticket lease, whatever the number of its waiters.
     */
    @Override
    public void refreshTickets(List<Queued> tickets, long leaseMillis) {
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        for (Queued queued : tickets) {
            for (String key : queued.keys()) {
                pairs.add(Map.entry(key, queued.ticketId()));
            }
        }
        Function<List<Map.Entry<String, String>>, Set<String>> refresh = group -> {
            for (int from = 0; from < group.size(); from += REFRESH_BATCH) {
                List<Map.Entry<String, String>> batch = group.subList(from,
                        Math.min(group.size(), from + REFRESH_BATCH));
                List<String> scriptKeys = new ArrayList<>(2 * batch.size());
                Object[] args = new Object[batch.size() + 1];
                args[0] = Long.toString(leaseMillis);
                for (int i = 0; i < batch.size(); i++) {
                    scriptKeys.add(space.queue(batch.get(i).getKey()));
                    scriptKeys.add(space.queueDeadlines(batch.get(i).getKey()));
                    args[i + 1] = batch.get(i).getValue();
                }
                call(() -> "refresh " + batch.size() + " waiters' tickets", () -> redis.execute(LockScripts.REFRESH,
                        scriptKeys, args));
            }
            return Set.of();
        };
        if (pairs.isEmpty()) {
            return;
        }
        if (onCluster()) {
            eachSlot(pairs, Map.Entry::getKey, refresh);
        } else {
            refresh.apply(pairs);
        }
    }

    /** Once per slot on a cluster, every slot on its own: a failing shard's keys are named by the exception. */
    @Override
    public void dequeue(List<String> keys, String ticketId) {
        if (keys.isEmpty()) {
            return;
        }
        Function<List<String>, Set<String>> dequeue = group -> {
            call(() -> "take a waiter for " + StoreKeys.describe(group) + " out of their queues", () -> redis.execute(
                    script(LockScripts.DEQUEUE), lockAndQueueKeys(group), ticketId, space.releaseChannel(group.get(0)),
                    prefixBytes));
            return Set.of();
        };
        if (onCluster()) {
            eachSlot(keys, key -> key, dequeue);
        } else {
            dequeue.apply(keys);
        }
    }

    @Override
    public long infiniteLeaseMillis() {
        return infiniteLeaseMillis;
    }

    /** The lock keys of {@code keys}, then their wait queues, then the queues' deadlines: the scripts' layout. */
    private List<String> lockAndQueueKeys(List<String> keys) {
        List<String> scriptKeys = new ArrayList<>(3 * keys.size() + 1);
        for (String key : keys) {
            scriptKeys.add(space.lock(key));
        }
        for (String key : keys) {
            scriptKeys.add(space.queue(key));
        }
        for (String key : keys) {
            scriptKeys.add(space.queueDeadlines(key));
        }
        return scriptKeys;
    }

    /**
     * A script that timed out may still run later (it waited in a buffer, or the server was slow), and take
     * the keys for an owner that has given up: release them for that owner, which deletes nothing else
     * since owner ids are unique. Not here, where it would make the failed acquire wait a second timeout (SPEC
     * 8: an acquire outlives its wait time by one {@code locks.redis.timeout} at most): a
     * {@link PartlyUnavailableException} names every key as in doubt, and the engine releases them in the
     * background (after its first retry's pause, so behind the acquire on the shared connection), again until
     * it gets through or their lease would have run out; on a cluster only the shards not reached are retried.
     */
    private static LockUnavailableException undone(List<String> keys, LockUnavailableException failure) {
        LockUnavailableException partly = new PartlyUnavailableException(failure.getMessage(), failure.getCause(),
                new LinkedHashSet<>(keys), Set.of());
        for (Throwable suppressed : failure.getSuppressed()) {
            partly.addSuppressed(suppressed);
        }
        return partly;
    }

    /** Undoes an acquire an interrupt cut off, before it is sent again; a failure shows in the next send. */
    private void releaseQuietly(List<String> keys, Owner owner, int permits) {
        try {
            if (permits == 0) {
                release(ownerships(keys, owner));
            } else {
                releaseShared(ownerships(keys, owner));
            }
        } catch (LockUnavailableException ignored) {
            // the acquire sent again fails the same way, and is undone then
        }
    }

    private static List<Ownership> ownerships(List<String> keys, Owner owner) {
        List<Ownership> ownerships = new ArrayList<>(keys.size());
        for (String key : keys) {
            ownerships.add(new Ownership(key, owner.id(), 0));
        }
        return ownerships;
    }

    @Override
    public Set<String> release(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        return perSlot(keys, group -> releaseGroup(group, LockScripts.RELEASE));
    }

    /** One release script call ({@code script}: exclusive or shared) for keys of one slot (any keys off a cluster). */
    @SuppressWarnings("rawtypes")
    private Set<String> releaseGroup(List<Ownership> keys, RedisScript<List> script) {
        List<String> scriptKeys = lockAndQueueKeys(keysOf(keys));
        Object[] args = new Object[keys.size() + 2];
        args[0] = space.releaseChannel(keys.get(0).key());
        args[1] = prefixBytes;
        for (int i = 0; i < keys.size(); i++) {
            args[i + 2] = keys.get(i).ownerId();
        }
        return keysAt(keys, call(() -> "release " + StoreKeys.describe(keysOf(keys)),
                () -> cycle.call(script(script), scriptKeys, args)));
    }

    @Override
    public boolean holdsAtLeast() {
        return true;
    }

    /**
     * The release script with each key's hold ({@code release.lua}): one script call per slot, as a release. A
     * key held over is rewritten with its owner id marked and its expiry at its acquire time plus the hold, by
     * the server's clock; a key that is gone (it expired, held over) is told to its waiters.
     */
    @Override
    public Held releaseHeld(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return new Held(Set.of(), Map.of());
        }
        Map<String, Long> held = new ConcurrentHashMap<>();
        Set<String> lost = perSlot(keys, group -> releaseHeldGroup(group, held));
        return new Held(lost, held);
    }

    /** One release script call with holds for keys of one slot; the keys held over go into {@code held}. */
    private Set<String> releaseHeldGroup(List<Ownership> keys, Map<String, Long> held) {
        List<String> scriptKeys = lockAndQueueKeys(keysOf(keys));
        Object[] args = new Object[2 * keys.size() + 2];
        args[0] = space.releaseChannel(keys.get(0).key());
        args[1] = prefixBytes;
        for (int i = 0; i < keys.size(); i++) {
            args[i + 2] = keys.get(i).ownerId();
            args[keys.size() + i + 2] = Long.toString(keys.get(i).holdMillis());
        }
        List<?> pairs = call(() -> "release " + StoreKeys.describe(keysOf(keys)),
                () -> cycle.call(script(LockScripts.RELEASE), scriptKeys, args));
        Held answer = Held.ofPairs(keys, pairs == null ? List.of() : pairs.stream().map(Number.class::cast).toList());
        held.putAll(answer.heldMillis());
        return answer.lost();
    }

    @Override
    public Set<String> renew(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        return perSlot(keys, group -> renewGroup(group, LockScripts.RENEW));
    }

    /** One renew script call ({@code script}: exclusive or shared) for keys of one slot (any keys off a cluster). */
    @SuppressWarnings("rawtypes")
    private Set<String> renewGroup(List<Ownership> keys, RedisScript<List> script) {
        List<String> scriptKeys = new ArrayList<>(keys.size());
        Object[] args = new Object[keys.size() * 2];
        for (int i = 0; i < keys.size(); i++) {
            Ownership ownership = keys.get(i);
            scriptKeys.add(space.lock(ownership.key()));
            args[2 * i] = ownership.ownerId();
            args[2 * i + 1] = Long.toString(ownership.leaseMillis() > 0 ? ownership.leaseMillis() : infiniteLeaseMillis);
        }
        return keysAt(keys, call(() -> "renew " + keys.size() + " locks",
                () -> redis.execute(script, scriptKeys, args)));
    }

    @Override
    public List<RemoteLock> scan(int batchSize) {
        return scan(batchSize, Integer.MAX_VALUE);
    }

    /** As {@link #scan(int)}, but stops the {@code SCAN} once {@code limit} locks are found. */
    @Override
    public List<RemoteLock> scan(int batchSize, int limit) {
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batchSize must be > 0, was " + batchSize);
        }
        ScanOptions options = ScanOptions.scanOptions().match(space.lockPattern()).count(batchSize).build();
        boolean onCluster = onCluster();
        return call(() -> "list the locks under '" + space.prefix() + "'", () -> {
            List<RemoteLock> locks = new ArrayList<>();
            Set<String> seen = new HashSet<>(); // SCAN may return a key more than once
            List<String> batch = new ArrayList<>(batchSize);
            if (!onCluster) {
                try (Cursor<String> cursor = redis.scan(options)) {
                    scan(cursor::hasNext, cursor::next, batchSize, limit, seen, batch, locks);
                }
            } else {
                try (RedisClusterConnection connection = factory.getClusterConnection()) {
                    for (RedisClusterNode node : connection.clusterGetNodes()) {
                        if (node.isMaster() && !node.getSlotRange().getSlots().isEmpty()) { // each master, once
                            try (Cursor<byte[]> cursor = connection.scan(node, options)) {
                                scan(cursor::hasNext, () -> new String(cursor.next(), StandardCharsets.UTF_8), batchSize,
                                        limit, seen, batch, locks);
                            }
                        }
                    }
                }
            }
            read(batch, locks);
            return locks;
        });
    }

    /** Reads the locks one {@code SCAN} cursor finds into {@code locks}, {@code batchSize} at a time. */
    private void scan(BooleanSupplier hasNext, Supplier<String> next, int batchSize, int limit, Set<String> seen,
            List<String> batch, List<RemoteLock> locks) {
        while (locks.size() + batch.size() < limit && hasNext.getAsBoolean()) {
            RedisRoundTrip.progress(); // each SCAN batch is a round trip of its own, bounded by the timeout
            String lockKey = next.get();
            if (space.isLock(lockKey) && seen.add(lockKey)) {
                batch.add(lockKey);
                if (batch.size() == batchSize) {
                    read(batch, locks);
                    batch.clear();
                }
            }
        }
    }

    @Override
    public RemoteLock get(String key) {
        StoreKeys.requireValid(key);
        onCluster();
        List<RemoteLock> found = new ArrayList<>(1);
        call(() -> "read the lock on '" + key + "'", () -> {
            read(List.of(space.lock(key)), found);
            return null;
        });
        return found.isEmpty() ? null : found.get(0);
    }

    /** Reads the locks at {@code lockKeys} into {@code into} (one script call); missing ones are left out. */
    private void read(List<String> lockKeys, List<RemoteLock> into) {
        if (lockKeys.isEmpty()) {
            return;
        }
        if (space.cluster()) {
            for (List<String> group : ClusterSlots.bySlot(lockKeys, lockKey -> lockKey)) {
                readGroup(group, into);
            }
        } else {
            readGroup(lockKeys, into);
        }
    }

    private void readGroup(List<String> lockKeys, List<RemoteLock> into) {
        List<?> result = redis.execute(LockScripts.READ, lockKeys);
        long nowMicros = Long.parseLong((String) result.get(0));
        for (int i = 0; i < lockKeys.size(); i++) {
            if (result.get(i + 1) instanceof List<?> fields) {
                if (!fields.isEmpty() && fields.get(0) instanceof List<?>) { // held shared or by permits: each holder
                    for (Object holder : fields) {
                        into.add(lock(space.keyOf(lockKeys.get(i)), (List<?>) holder, nowMicros));
                    }
                } else {
                    into.add(lock(space.keyOf(lockKeys.get(i)), fields, nowMicros));
                }
            }
        }
    }

    private static RemoteLock lock(String key, List<?> fields, long nowMicros) {
        long pttl = (Long) fields.get(4);
        Instant now = micros(nowMicros - Math.floorMod(nowMicros, 1_000L)); // Redis expires by whole milliseconds
        return new RemoteLock(key, (String) fields.get(0), (String) fields.get(1),
                Long.parseLong((String) fields.get(2)), micros(Long.parseLong((String) fields.get(3))),
                pttl < 0 ? Instant.MAX : now.plusMillis(pttl));
    }

    private static Instant micros(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    @Override
    public boolean forceRelease(String key) {
        StoreKeys.requireValid(key);
        onCluster();
        Long removed = call(() -> "force-release '" + key + "'", () -> redis.execute(script(LockScripts.FORCE_RELEASE),
                List.of(space.lock(key)), space.releaseChannel(key), ReleaseMessage.encode(key)));
        return removed != null && removed == 1;
    }

    /**
     * One round trip for a health check, bounded by the timeout like every other: a {@code PING}, and on a
     * Redis Cluster its state, which must be {@code ok} (every slot served).
     *
     * @throws LockUnavailableException when Redis does not answer in time, or a Cluster does not serve every slot
     */
    void ping() {
        String state = call(() -> "answer a PING", () -> {
            try (RedisConnection connection = commands.getConnection()) {
                connection.ping();
                return connection instanceof RedisClusterConnection clustered
                        ? clustered.clusterGetClusterInfo().getState() : "ok";
            }
        });
        if (!"ok".equals(state)) {
            throw new LockUnavailableException("The Redis Cluster of the locks does not serve every slot (cluster_state:"
                    + state + "): a master is down and no replica took over yet", null);
        }
    }

    /** Subscribes this node to the release channel, unless notification is off. Once per store. */
    @Override
    public synchronized boolean subscribe(Consumer<String> released, Runnable missed) {
        Objects.requireNonNull(released, "released");
        Objects.requireNonNull(missed, "missed");
        if (!notify) {
            return false;
        }
        if (subscription != null) {
            throw new IllegalStateException("this Redis lock store is already subscribed (one subscription per node)");
        }
        subscription = new ReleaseSubscription(factory, space.releaseChannel(), released, missed);
        subscription.start();
        return true;
    }

    /** Subscribes anew, if subscribed: see {@link RedisLockRegistry#resubscribe()}. */
    synchronized void resubscribe() {
        if (subscription != null) {
            subscription.restart();
        }
    }

    /** How many times Redis confirmed this node's subscription (tests: it comes back after an outage). */
    synchronized int subscriptionConfirmations() {
        return subscription == null ? 0 : subscription.confirmations();
    }

    /** On a Redis Cluster through Lettuce, how many slots' channels this node's subscription lacks now (tests). */
    synchronized int missingShardChannels() {
        return subscription == null ? 0 : subscription.missingShardChannels();
    }

    @Override
    public synchronized void close() {
        slotThreads.shutdown();
        if (subscription != null) {
            subscription.close();
            subscription = null;
        }
    }

    /** {@code script}, or with sharded pub/sub its twin that publishes on the shard ({@link LockScripts#sharded}). */
    private <T> RedisScript<T> script(RedisScript<T> script) {
        return space.sharded() ? LockScripts.sharded(script) : script;
    }

    /** One round trip, whatever the caller's interrupt status; every command here is safe to send again. */
    private <T> T call(Supplier<String> what, Supplier<T> command) {
        try {
            return roundTrip.repeatable(command);
        } catch (DataAccessException e) {
            throw unavailable(what.get(), e);
        }
    }

    /** Every failed command comes here: on a cluster, the master it went to may have failed over. */
    private LockUnavailableException unavailable(String what, DataAccessException e) {
        ClusterViewRefresh refresh = view;
        if (refresh != null) {
            refresh.afterFailure();
        }
        return RedisFailures.unavailable("Redis lock store (key prefix '" + space.prefix() + "') could not " + what, e);
    }

    /** The keys at the 1-based {@code indexes} a script returned. */
    private static Set<String> keysAt(List<Ownership> keys, List<?> indexes) {
        if (indexes == null || indexes.isEmpty()) {
            return Set.of();
        }
        Set<String> found = new LinkedHashSet<>(indexes.size() * 2);
        for (Object index : indexes) {
            found.add(keys.get(((Long) index).intValue() - 1).key());
        }
        return found;
    }

    private static List<String> keysOf(List<Ownership> keys) {
        List<String> found = new ArrayList<>(keys.size());
        for (Ownership ownership : keys) {
            found.add(ownership.key());
        }
        return found;
    }
}
