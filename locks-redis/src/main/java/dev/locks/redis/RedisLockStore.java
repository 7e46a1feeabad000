package dev.locks.redis;

import dev.locks.LockUnavailableException;
import dev.locks.internal.Keys;
import dev.locks.spi.RemoteLockStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The {@link RemoteLockStore} on Redis, through the application's {@link RedisConnectionFactory}.
 *
 * <p>Data, under the key prefix ({@link KeySpace}): one hash per held key at {@code <prefix>lock:<key>} with
 * the fields {@code owner} (the lease's owner id), {@code desc} (its readable description), {@code token}
 * (its fencing token) and {@code at} (when it was taken, in microseconds by the server's clock), expiring
 * with the lease ({@code PEXPIRE}; none for an infinite lock timeout); a wait mark at
 * {@code <prefix>waiting:<key>}, set by an acquire that found the key held; the fencing counter
 * {@code <prefix>fencing}; the channel {@code <prefix>released}, on which a release publishes the keys it
 * freed that someone waits for (their mark, which it deletes, is set). A release nobody waits for publishes
 * nothing: the common, uncontended release costs no broadcast to every node.
 *
 * <p>Round trips: {@link #tryAcquire}, {@link #release}, {@link #renew}, {@link #get} and
 * {@link #forceRelease} are one script call each ({@link LockScripts}), whatever the number of keys;
 * {@link #scan} is one {@code SCAN} per batch plus one script call reading the batch.
 *
 * <p>Every method throws {@link LockUnavailableException}, naming what failed, when Redis cannot be reached
 * or does not answer within the client's command timeout.
 */
final class RedisLockStore implements RemoteLockStore {

    private final RedisConnectionFactory factory;
    private final StringRedisTemplate redis;
    private final KeySpace space;
    private final boolean notify;
    private final String prefixBytes;
    private ReleaseSubscription subscription;

    /**
     * @param keyPrefix the storage namespace of every key ({@code "locks:"} by default)
     * @param notify whether {@link #subscribe} subscribes (else waiters poll)
     */
    RedisLockStore(RedisConnectionFactory factory, String keyPrefix, boolean notify) {
        this.factory = Objects.requireNonNull(factory, "connectionFactory");
        this.redis = new StringRedisTemplate(factory);
        this.space = new KeySpace(keyPrefix);
        this.notify = notify;
        this.prefixBytes = Integer.toString(space.lockPrefixBytes());
    }

    KeySpace keySpace() {
        return space;
    }

    @Override
    public Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("no keys to acquire");
        }
        if (leaseMillis < 0) {
            throw new IllegalArgumentException("leaseMillis must be >= 0 (0 = no expiry), was " + leaseMillis);
        }
        List<String> scriptKeys = new ArrayList<>(2 * keys.size() + 1);
        for (String key : keys) {
            scriptKeys.add(space.lock(key));
        }
        for (String key : keys) {
            scriptKeys.add(space.waiting(key));
        }
        scriptKeys.add(space.fencingCounter());
        long result;
        try {
            result = redis.execute(LockScripts.ACQUIRE, scriptKeys, owner.id(), owner.description(),
                    Long.toString(leaseMillis));
        } catch (DataAccessException e) {
            throw undone(keys, owner, unavailable("acquire " + keys, e));
        }
        return result > 0 ? Attempt.taken(result) : Attempt.heldBy(keys.get((int) -result - 1));
    }

    /**
     * A script that timed out may still run later (it waited in a buffer, or the server was slow), and take
     * the keys for an owner that has given up: release them for that owner, which deletes nothing else
     * since owner ids are unique. Best effort: when Redis is down this fails too, and the keys (if the
     * script ever ran) expire after their lease.
     */
    private LockUnavailableException undone(List<String> keys, Owner owner, LockUnavailableException failure) {
        List<Ownership> ownerships = new ArrayList<>(keys.size());
        for (String key : keys) {
            ownerships.add(new Ownership(key, owner.id(), 0));
        }
        try {
            release(ownerships);
        } catch (LockUnavailableException e) {
            failure.addSuppressed(e);
        }
        return failure;
    }

    @Override
    public Set<String> release(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        List<String> scriptKeys = new ArrayList<>(2 * keys.size());
        Object[] args = new Object[keys.size() + 2];
        args[0] = space.releaseChannel();
        args[1] = prefixBytes;
        for (int i = 0; i < keys.size(); i++) {
            scriptKeys.add(space.lock(keys.get(i).key()));
            args[i + 2] = keys.get(i).ownerId();
        }
        for (Ownership ownership : keys) {
            scriptKeys.add(space.waiting(ownership.key()));
        }
        return keysAt(keys, call(() -> "release " + keysOf(keys),
                () -> redis.execute(LockScripts.RELEASE, scriptKeys, args)));
    }

    @Override
    public Set<String> renew(List<Ownership> keys) {
        if (keys.isEmpty()) {
            return Set.of();
        }
        List<String> scriptKeys = new ArrayList<>(keys.size());
        Object[] args = new Object[keys.size() * 2];
        for (int i = 0; i < keys.size(); i++) {
            Ownership ownership = keys.get(i);
            scriptKeys.add(space.lock(ownership.key()));
            args[2 * i] = ownership.ownerId();
            args[2 * i + 1] = Long.toString(Math.max(0, ownership.leaseMillis()));
        }
        return keysAt(keys, call(() -> "renew " + keys.size() + " locks",
                () -> redis.execute(LockScripts.RENEW, scriptKeys, args)));
    }

    @Override
    public List<RemoteLock> scan(int batchSize) {
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batchSize must be > 0, was " + batchSize);
        }
        ScanOptions options = ScanOptions.scanOptions().match(space.lockPattern()).count(batchSize).build();
        return call(() -> "list the locks under '" + space.prefix() + "'", () -> {
            List<RemoteLock> locks = new ArrayList<>();
            Set<String> seen = new HashSet<>(); // SCAN may return a key more than once
            List<String> batch = new ArrayList<>(batchSize);
            try (Cursor<String> cursor = redis.scan(options)) {
                while (cursor.hasNext()) {
                    String lockKey = cursor.next();
                    if (space.isLock(lockKey) && seen.add(lockKey)) {
                        batch.add(lockKey);
                        if (batch.size() == batchSize) {
                            read(batch, locks);
                            batch.clear();
                        }
                    }
                }
            }
            read(batch, locks);
            return locks;
        });
    }

    @Override
    public RemoteLock get(String key) {
        Keys.requireValid(key, 0);
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
        List<?> result = redis.execute(LockScripts.READ, lockKeys);
        long nowMicros = Long.parseLong((String) result.get(0));
        for (int i = 0; i < lockKeys.size(); i++) {
            if (result.get(i + 1) instanceof List<?> fields) {
                into.add(lock(space.keyOf(lockKeys.get(i)), fields, nowMicros));
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
        Keys.requireValid(key, 0);
        Long removed = call(() -> "force-release '" + key + "'", () -> redis.execute(LockScripts.FORCE_RELEASE,
                List.of(space.lock(key)), space.releaseChannel(), ReleaseMessage.encode(key)));
        return removed != null && removed == 1;
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

    /** How many times Redis confirmed this node's subscription (tests: it comes back after an outage). */
    synchronized int subscriptionConfirmations() {
        return subscription == null ? 0 : subscription.confirmations();
    }

    @Override
    public synchronized void close() {
        if (subscription != null) {
            subscription.close();
            subscription = null;
        }
    }

    private <T> T call(Supplier<String> what, Supplier<T> command) {
        try {
            return command.get();
        } catch (DataAccessException e) {
            throw unavailable(what.get(), e);
        }
    }

    private LockUnavailableException unavailable(String what, DataAccessException e) {
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
        return keys.stream().map(Ownership::key).toList();
    }
}
