package dev.locks.test;

import dev.locks.LockUnavailableException;
import dev.locks.LocksClock;
import dev.locks.spi.RemoteLockStore;
import dev.locks.spi.RemoteLockStore.RemoteLock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A shared lock store in memory, standing in for a server that several nodes (engines) use: each
 * {@link #node(boolean)} is one node's {@link RemoteLockStore}. It counts calls (round trips), expires
 * leases on its clock, and can be taken down to simulate an outage.
 */
public final class InMemoryLockServer {

    /** What marks the owner id of a lock held over after its release. */
    private static final String HELD_OVER = "~held";

    private record Lock(String ownerId, String description, long token, Instant acquiredAt, long expiresNanos) {
    }

    private final LocksClock clock;
    private final Map<String, Lock> locks = new HashMap<>();
    private final List<Consumer<String>> subscribers = new CopyOnWriteArrayList<>();
    private final List<Runnable> resubscribed = new CopyOnWriteArrayList<>();
    private volatile boolean silent;
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private long fencing;
    private volatile boolean down;

    public InMemoryLockServer(LocksClock clock) {
        this.clock = clock;
    }

    /** One node's view of the server; {@code notify} false: it subscribes to nothing. */
    public RemoteLockStore node(boolean notify) {
        return new Node(notify);
    }

    /** Simulates an outage (true) and its end (false). */
    public void down(boolean down) {
        this.down = down;
    }

    /**
     * While silent, releases are not published (a subscription that is down), and a node that subscribes meanwhile
     * is confirmed only at the next {@link #resubscribe()} (as PostgreSQL's {@code LISTEN}, which the node's listening
     * thread sends some time after the registry started).
     */
    public void silent(boolean silent) {
        this.silent = silent;
    }

    /** Every node's subscription comes back, as after an outage. */
    public void resubscribe() {
        resubscribed.forEach(Runnable::run);
    }

    /** How many times a store method was called, across all nodes. */
    public int calls(String method) {
        AtomicInteger count = calls.get(method);
        return count == null ? 0 : count.get();
    }

    public int totalCalls() {
        return calls.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /** The keys the server holds now. */
    public synchronized Set<String> keys() {
        purge();
        return new HashSet<>(locks.keySet());
    }

    private void call(String method) {
        if (down) {
            throw new LockUnavailableException("in-memory lock server is down", new IllegalStateException("down"));
        }
        calls.computeIfAbsent(method, m -> new AtomicInteger()).incrementAndGet();
    }

    private void purge() {
        long now = clock.nanoTime();
        locks.values().removeIf(lock -> lock.expiresNanos() != Long.MAX_VALUE && now - lock.expiresNanos() >= 0);
    }

    private long expiry(long leaseMillis) {
        return leaseMillis == 0 ? Long.MAX_VALUE : clock.nanoTime() + leaseMillis * 1_000_000;
    }

    private void publish(List<String> released) {
        if (silent) {
            return;
        }
        for (String key : released) {
            subscribers.forEach(subscriber -> subscriber.accept(key));
        }
    }

    private RemoteLock view(String key, Lock lock) {
        Instant expiresAt = lock.expiresNanos() == Long.MAX_VALUE ? Instant.MAX
                : clock.instant().plusNanos(lock.expiresNanos() - clock.nanoTime());
        return new RemoteLock(key, lock.ownerId(), lock.description(), lock.token(), lock.acquiredAt(), expiresAt);
    }

    private final class Node implements RemoteLockStore {

        private final boolean notify;
        private Consumer<String> subscription;
        private Runnable missed;

        Node(boolean notify) {
            this.notify = notify;
        }

        @Override
        public Attempt tryAcquire(List<String> keys, Owner owner, long leaseMillis) {
            call("tryAcquire");
            synchronized (InMemoryLockServer.this) {
                purge();
                for (String key : keys) {
                    if (locks.containsKey(key)) {
                        return Attempt.heldBy(key);
                    }
                }
                long token = ++fencing;
                for (String key : keys) {
                    locks.put(key, new Lock(owner.id(), owner.description(), token, clock.instant(),
                            expiry(leaseMillis)));
                }
                return Attempt.taken(token);
            }
        }

        @Override
        public Set<String> release(List<Ownership> keys) {
            call("release");
            Set<String> lost = new HashSet<>();
            List<String> released = new ArrayList<>();
            synchronized (InMemoryLockServer.this) {
                purge();
                for (Ownership ownership : keys) {
                    Lock lock = locks.get(ownership.key());
                    if (lock != null && lock.ownerId().equals(ownership.ownerId())) {
                        locks.remove(ownership.key());
                        released.add(ownership.key());
                    } else {
                        lost.add(ownership.key());
                    }
                }
            }
            publish(released);
            return lost;
        }

        @Override
        public boolean holdsAtLeast() {
            return true;
        }

        /**
         * A key closed before its hold-at-least time is held over: its owner id is marked (so that its owner's
         * renewals find it lost) and it expires at {@code acquiredAt + holdMillis} on the server's clock; gone (it
         * expired), it is published all the same, since waiters may be told of it only now.
         */
        @Override
        public Held releaseHeld(List<Ownership> keys) {
            call("release");
            Set<String> lost = new HashSet<>();
            Map<String, Long> held = new HashMap<>();
            List<String> released = new ArrayList<>();
            synchronized (InMemoryLockServer.this) {
                purge();
                for (Ownership ownership : keys) {
                    Lock lock = locks.get(ownership.key());
                    boolean mine = lock != null && (lock.ownerId().equals(ownership.ownerId())
                            || lock.ownerId().equals(ownership.ownerId() + HELD_OVER));
                    if (!mine) {
                        lost.add(ownership.key());
                        if (lock == null) {
                            released.add(ownership.key());
                        }
                        continue;
                    }
                    long left = java.time.Duration.between(clock.instant(),
                            lock.acquiredAt().plusMillis(ownership.holdMillis())).toNanos();
                    if (left <= 0) {
                        locks.remove(ownership.key());
                        released.add(ownership.key());
                    } else {
                        locks.put(ownership.key(), new Lock(ownership.ownerId() + HELD_OVER, lock.description(),
                                lock.token(), lock.acquiredAt(), clock.nanoTime() + left));
                        held.put(ownership.key(), Math.max(1, (left + 999_999) / 1_000_000));
                    }
                }
            }
            publish(released);
            return new Held(lost, held);
        }

        @Override
        public Set<String> renew(List<Ownership> keys) {
            call("renew");
            Set<String> lost = new HashSet<>();
            synchronized (InMemoryLockServer.this) {
                purge();
                for (Ownership ownership : keys) {
                    Lock lock = locks.get(ownership.key());
                    if (lock != null && lock.ownerId().equals(ownership.ownerId())) {
                        locks.put(ownership.key(), new Lock(lock.ownerId(), lock.description(), lock.token(),
                                lock.acquiredAt(), expiry(ownership.leaseMillis())));
                    } else {
                        lost.add(ownership.key());
                    }
                }
            }
            return lost;
        }

        @Override
        public List<RemoteLock> scan(int batchSize) {
            call("scan");
            synchronized (InMemoryLockServer.this) {
                purge();
                return locks.entrySet().stream().map(e -> view(e.getKey(), e.getValue())).toList();
            }
        }

        @Override
        public RemoteLock get(String key) {
            call("get");
            synchronized (InMemoryLockServer.this) {
                purge();
                Lock lock = locks.get(key);
                return lock == null ? null : view(key, lock);
            }
        }

        @Override
        public boolean forceRelease(String key) {
            call("forceRelease");
            boolean removed;
            synchronized (InMemoryLockServer.this) {
                purge();
                removed = locks.remove(key) != null;
            }
            if (removed) {
                publish(List.of(key));
            }
            return removed;
        }

        @Override
        public boolean subscribe(Consumer<String> released, Runnable missed) {
            if (!notify) {
                return false;
            }
            subscription = released;
            this.missed = missed;
            subscribers.add(released);
            resubscribed.add(missed);
            if (!silent) {
                missed.run();
            }
            return true;
        }

        @Override
        public void close() {
            if (subscription != null) {
                subscribers.remove(subscription);
                resubscribed.remove(missed);
            }
        }
    }
}
