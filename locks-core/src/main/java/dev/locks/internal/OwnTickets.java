package dev.locks.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * This node's tickets placed in a store whose queues count them ({@link dev.locks.spi.RemoteLockStore#queuesOwnWaiters}),
 * per key: the store refuses a newcomer to a key while an older ticket waits there, and so, before the newcomer
 * touches this node's table, does the node for its own tickets ({@link #olderAt}).
 *
 * <p>Without it a node's one-key callers starved its many-key waiter: each of their attempts took its key's entry
 * in the node's table for the round trip in which the store refused it (the waiter's ticket is older), and the
 * waiter, whose attempts meet this node's table first, kept finding one of those short-lived entries in its way
 * (on MariaDB with twelve one-key streams per node, the three-key waiter starved in every run: about 15,000
 * attempts in 20 s, each turned away at a stream's entry). Kept out of the table, the newcomers wait for the ticket
 * to leave the key, which the store would have made them do anyway.
 *
 * <p>A waiter's keys here follow its ticket's keys in the store as this node last placed them ({@link
 * Waiter#remoteKeys}, once it has an order there). A caller kept out waits as for the store: neither the table's
 * releases nor the store's notices concern it while the older ticket waits. Whenever a ticket leaves a key, or its
 * order changes, the waiter whose ticket is now the oldest of the node's there is woken, and nobody else (the others
 * are still behind it: a crowd of a thousand behind one ticket costs one wake-up per hand-off, not a thousand);
 * when none is left there, the key's waiters without a ticket are woken as by a release ({@link
 * WaitQueues#released}). Written by each waiter's own steps, read by any attempt without a lock: a key's waiters
 * are an array replaced on each change.
 */
final class OwnTickets {

    private static final Waiter[] NONE = new Waiter[0];

    private final ConcurrentHashMap<String, Waiter[]> byKey = new ConcurrentHashMap<>();
    private final WaitQueues queues;

    OwnTickets(WaitQueues queues) {
        this.queues = queues;
    }

    /**
     * What keeps {@code waiter} (or a newcomer, when {@code null}) out of {@code key}: another waiter of this node
     * whose ticket waits there and is older than {@code waiter}'s (any, when it has none), or {@code null}.
     */
    Blocker olderAt(String key, Waiter waiter) {
        if (byKey.isEmpty()) {
            return null;
        }
        Waiter older = oldestBefore(byKey.getOrDefault(key, NONE), waiter);
        if (older == null) {
            return null;
        }
        long order = older.remoteOrder;
        return new OlderTicket(key, () -> !isAt(key, older) || older.remoteOrder != order);
    }

    private static Waiter oldestBefore(Waiter[] tickets, Waiter waiter) {
        long mine = waiter == null ? 0 : waiter.remoteOrder;
        Waiter oldest = null;
        for (Waiter other : tickets) {
            long theirs = other.remoteOrder;
            if (other != waiter && theirs > 0 && (mine == 0 || theirs < mine)
                    && (oldest == null || theirs < oldest.remoteOrder)) {
                oldest = other;
            }
        }
        return oldest;
    }

    private boolean isAt(String key, Waiter waiter) {
        for (Waiter other : byKey.getOrDefault(key, NONE)) {
            if (other == waiter) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code waiter}'s ticket is now at its {@link Waiter#remoteKeys} (none, once it got its keys or gave up), by
     * order {@code previousOrder} before ({@code 0}: none) and {@link Waiter#remoteOrder} now: the keys it left, and
     * all of them if its order changed, wake their waiters of this node.
     */
    void moved(Waiter waiter, long previousOrder) {
        Set<String> now = waiter.remoteOrder > 0 ? waiter.remoteKeys : Set.of();
        List<String> was = waiter.ticketKeys;
        if (was.isEmpty() && now.isEmpty()) {
            return;
        }
        List<String> kept = new ArrayList<>(now.size());
        List<String> woken = new ArrayList<>();
        boolean reordered = previousOrder != 0 && previousOrder != waiter.remoteOrder;
        for (String key : now) {
            kept.add(key);
            if (!was.contains(key)) {
                byKey.compute(key, (k, tickets) -> with(tickets, waiter));
            } else if (reordered) {
                woken.add(key);
            }
        }
        for (String key : was) {
            if (!now.contains(key)) {
                byKey.computeIfPresent(key, (k, tickets) -> without(tickets, waiter));
                woken.add(key);
            }
        }
        waiter.ticketKeys = List.copyOf(kept);
        for (String key : woken) {
            Waiter oldest = oldestBefore(byKey.getOrDefault(key, NONE), null);
            if (oldest == null) {
                queues.released(key, waiter, false);
            } else if (oldest != waiter) {
                oldest.signal();
            }
        }
    }

    private static Waiter[] with(Waiter[] tickets, Waiter waiter) {
        if (tickets == null) {
            return new Waiter[] {waiter};
        }
        Waiter[] more = Arrays.copyOf(tickets, tickets.length + 1);
        more[tickets.length] = waiter;
        return more;
    }

    private static Waiter[] without(Waiter[] tickets, Waiter waiter) {
        int at = -1;
        for (int i = 0; i < tickets.length; i++) {
            if (tickets[i] == waiter) {
                at = i;
            }
        }
        if (at < 0) {
            return tickets;
        }
        if (tickets.length == 1) {
            return null; // the key leaves the map
        }
        Waiter[] fewer = new Waiter[tickets.length - 1];
        System.arraycopy(tickets, 0, fewer, 0, at);
        System.arraycopy(tickets, at + 1, fewer, at, tickets.length - at - 1);
        return fewer;
    }

    /** An older ticket of this node waits at the key: released once it left the key, or its order changed. */
    record OlderTicket(String key, BooleanSupplier gone) implements Blocker {
        @Override
        public boolean released() {
            return gone.getAsBoolean();
        }
    }
}
