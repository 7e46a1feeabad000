package dev.locks.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The waiters of this JVM, per key, oldest first: who to wake when a key is released, and (when fair) who
 * may take it. A waiter is in the queues of its keys from its first failed attempt until it gets them or
 * gives up, and then leaves every one of them: nothing stays behind, and a queue that empties leaves the map.
 *
 * <p><b>Fair</b> (the in-memory backend, where this JVM is the whole truth): a key goes to the oldest waiter
 * in its queue before anyone newer; a release wakes only that waiter, and so does its leaving (the next one
 * is then the oldest). A waiter is in the queues of its keys up to the one that blocked it, in sorted order,
 * never beyond: it claims a key only once it could take every key before it, just as a holder of sorted keys
 * does, so that the claims of waiters and the holds of nested acquires (also in sorted order) never wait
 * for each other in a circle. Since every waiter's order is fixed, the oldest one waits for holders only, who
 * release: each waiter gets its keys after at most the waiters older than it (bounded bypass).
 *
 * <p><b>Not fair</b> (a distributed backend, whose store orders the waiters of every node): the queues only
 * say whom to wake. On a notification from the store, the head of the key's queue: of its waiting threads the one
 * the store lets in first (the lowest order there, else the oldest here), and of its asynchronous waiters
 * ({@link AsyncAcquire}, of which there may be thousands) likewise one; every other waiter would only be refused
 * (SPEC 8: a release wakes the head of the key's queue). On the release of an entry of this JVM's table, every
 * thread that waits for it (they contend in memory, which costs the store nothing) and the asynchronous head. A
 * waiting thread that leaves a key's queue without its keys (it gave up, or waits at another key now) while it was
 * the head there wakes the next one, and an asynchronous waiter that leaves a queue (it got its keys, gave up, or
 * waits at an earlier key now) wakes the next asynchronous one, so that the wake-up is handed on rather than lost,
 * and a release costs a bounded number of attempts whatever the number of waiters.
 */
final class WaitQueues {

    private static final Comparator<Waiter> OLDEST_FIRST = Comparator.comparingLong(waiter -> waiter.order);

    /** Whose waiters a release wakes, when not fair: those of a table entry, of the store's key, or any. */
    private static final int TABLE = 0;
    private static final int STORE = 1;
    private static final int ANY = 2;

    private final boolean fair;
    private final AtomicLong orders = new AtomicLong();
    private final ConcurrentHashMap<String, Queue> queues = new ConcurrentHashMap<>();

    WaitQueues(boolean fair) {
        this.fair = fair;
    }

    boolean isFair() {
        return fair;
    }

    /** A new waiter for {@code keys}, younger than every earlier one. */
    Waiter newWaiter(String[] keys) {
        return new Waiter(Thread.currentThread(), orders.incrementAndGet(), keys);
    }

    /** A new waiter for {@code keys} that is the asynchronous acquire {@code async}, asked for by {@code thread}. */
    Waiter newAsyncWaiter(String[] keys, Thread thread, AsyncAcquire async) {
        return new Waiter(thread, async, orders.incrementAndGet(), keys);
    }

    /** Whether nobody waits for any key: the uncontended path skips every lookup. */
    boolean isEmpty() {
        return queues.isEmpty();
    }

    /** How many keys have waiters (tests: nothing left behind). */
    int size() {
        return queues.size();
    }

    /** Whether a waiter older than {@code order} waits for {@code key} ({@link Long#MAX_VALUE}: anyone). */
    boolean olderWaits(String key, long order) {
        Queue queue = queues.get(key);
        return queue != null && queue.olderThan(order);
    }

    /**
     * When not fair (in front of a store, which orders the waiters of every node), what keeps a shared acquirer
     * ({@code waiter}, or a newcomer when null) of {@code key} behind an older exclusive waiter of this JVM (SPEC 13:
     * writers are not starved), or {@code null}. The store orders the nodes' waiters; this keeps the order within
     * the node, which a store may leave to it (one whose queues leave out a node's own tickets: {@code
     * RemoteLockStore.queuesOwnWaiters} false).
     */
    Blocker olderWriter(String key, Waiter waiter) {
        if (fair || queues.isEmpty() || !olderWriterWaits(key, waiter)) {
            return null;
        }
        return new OlderWriter(key, () -> !olderWriterWaits(key, waiter));
    }

    /**
     * Whether an exclusive waiter older than {@code waiter} (any, for a newcomer) waits for {@code key}; where both
     * have a ticket in the store, the store's order decides (its queues decide across nodes: a reader the store
     * ranks first must not wait for a writer the store makes wait for that reader).
     */
    private boolean olderWriterWaits(String key, Waiter waiter) {
        Queue queue = queues.get(key);
        if (queue == null) {
            return false;
        }
        long order = waiter == null ? Long.MAX_VALUE : waiter.order;
        long ticket = waiter == null ? 0 : waiter.remoteOrder;
        synchronized (queue) {
            for (Waiter waiting : queue.waiters) {
                if (waiting.order >= order) {
                    return false;
                }
                long theirs = waiting.remoteOrder;
                if (waiting.exclusive && (ticket == 0 || theirs == 0 || theirs < ticket)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** An older exclusive waiter of this JVM in the way of a shared acquirer: released once it left the queue. */
    record OlderWriter(String key, BooleanSupplier gone) implements Blocker {
        @Override
        public boolean released() {
            return gone.getAsBoolean();
        }
    }

    /** What blocks {@code waiter} (or a newcomer, when null) at {@code key}: an older waiter. */
    Blocker olderWaiter(String key, Waiter waiter) {
        long order = waiter == null ? Long.MAX_VALUE : waiter.order;
        return Blocker.of(key, () -> !olderWaits(key, order));
    }

    /**
     * Puts {@code waiter} in the queues of its keys {@code [from, to)} and takes it out of the others it was
     * in (their next waiters are woken).
     *
     * @param local whether it waits for an entry of this JVM's table
     */
    void enlist(Waiter waiter, int from, int to, boolean local) {
        for (int i = waiter.from; i < waiter.to; i++) {
            if (i < from || i >= to) {
                leave(waiter.keys[i], waiter); // as what it waited for there: the head of a store's key hands on
            }
        }
        if (waiter.local != local) {
            waiter.local = local;
            changed(waiter); // which releases wake it changed in the queues it stays in
        }
        for (int i = from; i < to; i++) {
            if (i < waiter.from || i >= waiter.to) {
                join(waiter.keys[i], waiter);
            }
        }
        waiter.from = from;
        waiter.to = to;
    }

    /**
     * {@code waiter}'s place in the store ({@link Waiter#remoteOrder}) or whether it waits for a table entry changed:
     * the queues it is in work out their asynchronous leads again.
     */
    void changed(Waiter waiter) {
        if (!waiter.isAsync()) {
            return;
        }
        for (int i = waiter.from; i < waiter.to; i++) {
            Queue queue = queues.get(waiter.keys[i]);
            if (queue != null) {
                queue.asyncChanged();
            }
        }
    }

    /** Takes {@code waiter} out of every queue it is in: it got its keys, or gave up. */
    void leave(Waiter waiter) {
        for (int i = waiter.from; i < waiter.to; i++) {
            leave(waiter.keys[i], waiter);
        }
        waiter.from = 0;
        waiter.to = 0;
    }

    /**
     * {@code key} was released: wakes its oldest waiter (fair), or its waiters (not fair: those that wait for
     * a table entry when {@code fromTable}, else those that wait for the store, which told). {@code except}
     * (the releasing waiter rolling back an attempt) is never woken, and when fair and the oldest, nobody is:
     * the key is its claim.
     */
    void released(String key, Waiter except, boolean fromTable) {
        if (queues.isEmpty()) {
            return;
        }
        Queue queue = queues.get(key);
        if (queue != null) {
            queue.wake(except, fromTable ? TABLE : STORE);
        }
    }

    /**
     * Whether {@code waiter}, asynchronous, leads the asynchronous waiters of {@code key}: the one a release wakes
     * ({@link Queue#firstAsync}).
     */
    boolean leadsAsync(String key, Waiter waiter) {
        Queue queue = queues.get(key);
        return queue != null && queue.firstAsync(null, ANY) == waiter;
    }

    /** Wakes every waiter of every key (the store's notifications may have been missed). */
    void wakeAll() {
        for (Queue queue : queues.values()) {
            queue.wake(null, ANY);
        }
    }

    private void join(String key, Waiter waiter) {
        for (;;) {
            Queue queue = queues.computeIfAbsent(key, k -> new Queue());
            synchronized (queue) {
                if (!queue.gone) {
                    queue.waiters.add(waiter);
                    if (waiter.isAsync()) {
                        queue.asyncChanged();
                    }
                    return;
                }
            }
            queues.remove(key, queue);
        }
    }

    private void leave(String key, Waiter waiter) {
        Queue queue = queues.get(key);
        if (queue == null) {
            return;
        }
        Waiter next = null;
        List<Waiter> after = List.of();
        synchronized (queue) {
            boolean wasFirst = !queue.waiters.isEmpty() && queue.waiters.first() == waiter;
            boolean wasHead = !fair && !waiter.isAsync() && !waiter.took
                    && queue.first(null, STORE, false) == waiter;
            if (!queue.waiters.remove(waiter)) {
                return;
            }
            if (waiter.isAsync()) {
                queue.asyncChanged();
            }
            if (queue.waiters.isEmpty()) {
                queue.gone = true;
                queues.remove(key, queue);
            } else if (fair && wasFirst) {
                next = queue.waiters.first();
            } else if (!fair && waiter.isAsync()) {
                next = queue.firstAsync(null, ANY);
            }
            if (!fair && !queue.waiters.isEmpty()) {
                if (wasHead) {
                    after = queue.heads(null, STORE);
                }
                if (waiter.exclusive) {
                    after = queue.sharedBehind(waiter, after); // they may wait behind it (olderWriter)
                }
            }
        }
        if (next != null) {
            next.signal();
        }
        for (Waiter waiting : after) {
            waiting.signal();
        }
    }

    /** The waiters of one key; once empty it is gone, and a later waiter makes a new one. */
    private final class Queue {
        final TreeSet<Waiter> waiters = new TreeSet<>(OLDEST_FIRST);
        boolean gone;
        /**
         * The asynchronous waiter that a release of each kind ({@code TABLE}, {@code STORE}, {@code ANY}) wakes, once
         * worked out ({@link #asyncLeadsKnown}, a bit per kind) and until an asynchronous waiter joins, leaves, or
         * changes its place in the store or the kind of release it waits for: every one of a crowd of them asks at
         * each of its retries whether it leads ({@link WaitQueues#leadsAsync}), and a walk of the queue each time
         * cost the crowd {@code n²} steps per retry interval.
         */
        private final Waiter[] asyncLeads = new Waiter[3];
        private int asyncLeadsKnown;

        synchronized void asyncChanged() {
            asyncLeadsKnown = 0;
        }

        synchronized boolean olderThan(long order) {
            return !waiters.isEmpty() && waiters.first().order < order;
        }

        void wake(Waiter except, int whose) {
            if (fair) {
                Waiter first;
                synchronized (this) {
                    first = waiters.isEmpty() ? null : waiters.first();
                }
                if (first != null && first != except) {
                    first.signal();
                }
                return;
            }
            Waiter[] all;
            Waiter async;
            synchronized (this) {
                if (whose == STORE) {
                    all = heads(except, STORE).toArray(new Waiter[0]);
                } else {
                    all = threads(except, whose);
                }
                async = firstAsync(except, whose);
            }
            for (Waiter waiter : all) {
                waiter.signal();
            }
            if (async != null) {
                async.signal();
            }
        }

        /**
         * The waiting threads at the head of the queue for a release of {@code whose} ({@code except} left out): the
         * one the store lets in first, and when it takes the key shared, every thread that takes it shared (they may
         * all hold it together; an exclusive one among them would only be refused).
         */
        synchronized List<Waiter> heads(Waiter except, int whose) {
            Waiter head = first(except, whose, false);
            if (head == null) {
                return List.of();
            }
            if (head.exclusive) {
                return List.of(head);
            }
            List<Waiter> readers = new ArrayList<>();
            for (Waiter waiter : waiters) {
                if (!waiter.isAsync() && waiter != except && wakes(waiter, whose) && !waiter.exclusive) {
                    readers.add(waiter);
                }
            }
            return readers;
        }

        /** {@code also} and the shared waiters younger than {@code writer}, which may have waited behind it. */
        synchronized List<Waiter> sharedBehind(Waiter writer, List<Waiter> also) {
            List<Waiter> woken = new ArrayList<>(also);
            for (Waiter waiter : waiters) {
                if (waiter.order > writer.order && !waiter.exclusive && !woken.contains(waiter)) {
                    woken.add(waiter);
                }
            }
            return woken;
        }

        /** The waiting threads ({@code except} left out) that a release of {@code whose} wakes. */
        private Waiter[] threads(Waiter except, int whose) {
            List<Waiter> threads = new ArrayList<>();
            for (Waiter waiter : waiters) {
                if (!waiter.isAsync() && waiter != except && wakes(waiter, whose)) {
                    threads.add(waiter);
                }
            }
            return threads.toArray(new Waiter[0]);
        }

        /**
         * Of the asynchronous waiters ({@code except} left out) that a release of {@code whose} wakes, the one the
         * store lets in first: the lowest order there (when placed), else the oldest here.
         */
        synchronized Waiter firstAsync(Waiter except, int whose) {
            if ((asyncLeadsKnown & (1 << whose)) == 0) {
                asyncLeads[whose] = first(null, whose, true);
                asyncLeadsKnown |= 1 << whose;
            }
            Waiter lead = asyncLeads[whose];
            return except == null || lead != except ? lead : first(except, whose, true);
        }

        /**
         * Of the asynchronous waiters ({@code async}) or the waiting threads ({@code except} left out) that a
         * release of {@code whose} wakes, the one the store lets in first: the lowest order there (when placed),
         * else the oldest here.
         */
        synchronized Waiter first(Waiter except, int whose, boolean async) {
            Waiter first = null;
            long firstOrder = Long.MAX_VALUE;
            for (Waiter waiter : waiters) {
                if (waiter.isAsync() == async && waiter != except && wakes(waiter, whose)) {
                    long order = waiter.remoteOrder;
                    if (first == null || (order > 0 && order < firstOrder)) {
                        first = waiter;
                        firstOrder = order > 0 ? order : Long.MAX_VALUE;
                    }
                }
            }
            return first;
        }

        private static boolean wakes(Waiter waiter, int whose) {
            return whose == ANY || waiter.local == (whose == TABLE);
        }
    }
}
