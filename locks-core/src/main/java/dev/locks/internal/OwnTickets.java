package dev.locks.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
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
 * Waiter#remoteKeys}, once it has an order there). A thread kept out waits as for the store: neither the table's
 * releases nor the store's notices concern it while the older ticket waits (an asynchronous waiter waits as for the
 * table, whose release wakes one asynchronous waiter only: {@link LockEngine#enlist}). Whenever a ticket leaves a key, or its
 * order changes, the waiter whose ticket is now the oldest of the node's there is woken, and nobody else (the others
 * are still behind it: a crowd of a thousand behind one ticket costs one wake-up per hand-off, not a thousand);
 * when none is left there, the key's waiters without a ticket are woken as by a release ({@link
 * WaitQueues#released}). Written by each waiter's own steps, read by any attempt without a lock; a key's tickets
 * are kept by order, so that finding the oldest costs the same with ten thousand of them as with one.
 */
final class OwnTickets {

    private final ConcurrentHashMap<String, ConcurrentSkipListMap<Long, Waiter>> byKey = new ConcurrentHashMap<>();
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
        Map.Entry<Long, Waiter> older = oldestBefore(key, waiter);
        if (older == null) {
            return null;
        }
        long order = older.getKey();
        Waiter holder = older.getValue();
        return new OlderTicket(key, () -> !isAt(key, order, holder));
    }

    /** The oldest ticket at {@code key} of another waiter than {@code waiter}, if older than its own (any, at none). */
    private Map.Entry<Long, Waiter> oldestBefore(String key, Waiter waiter) {
        ConcurrentSkipListMap<Long, Waiter> tickets = byKey.get(key);
        if (tickets == null) {
            return null;
        }
        long mine = waiter == null ? 0 : waiter.remoteOrder;
        for (Map.Entry<Long, Waiter> ticket : tickets.entrySet()) { // oldest first; the waiter's own entry is skipped
            if (mine != 0 && ticket.getKey() >= mine) {
                return null;
            }
            if (ticket.getValue() != waiter) {
                return ticket;
            }
        }
        return null;
    }

    private boolean isAt(String key, long order, Waiter waiter) {
        ConcurrentSkipListMap<Long, Waiter> tickets = byKey.get(key);
        return tickets != null && tickets.get(order) == waiter;
    }

    /**
     * {@code waiter}'s ticket is now at its {@link Waiter#remoteKeys} (none, once it got its keys or gave up), by
     * its {@link Waiter#remoteOrder}: the keys it left, and all of them if its order changed, wake the waiter whose
     * ticket is now the node's oldest there.
     */
    void moved(Waiter waiter) {
        long order = waiter.remoteOrder;
        Set<String> now = order > 0 ? waiter.remoteKeys : Set.of();
        List<String> was = waiter.ticketKeys;
        long wasOrder = waiter.ticketOrder;
        if (was.isEmpty() && now.isEmpty()) {
            return;
        }
        boolean reordered = wasOrder != order;
        List<String> woken = new ArrayList<>();
        for (String key : was) {
            if (reordered || !now.contains(key)) {
                byKey.computeIfPresent(key, (k, tickets) -> {
                    tickets.remove(wasOrder, waiter);
                    return tickets.isEmpty() ? null : tickets; // the key leaves the map
                });
                woken.add(key);
            }
        }
        for (String key : now) {
            if (reordered || !was.contains(key)) {
                byKey.compute(key, (k, tickets) -> {
                    ConcurrentSkipListMap<Long, Waiter> at = tickets == null ? new ConcurrentSkipListMap<>() : tickets;
                    at.put(order, waiter);
                    return at;
                });
            }
        }
        waiter.ticketKeys = List.copyOf(now);
        waiter.ticketOrder = order;
        for (String key : woken) {
            Map.Entry<Long, Waiter> oldest = oldestBefore(key, null);
            if (oldest == null) { // the key's heads, of the table's waiters and the store's
                queues.released(key, waiter, true);
                queues.released(key, waiter, false);
            } else if (oldest.getValue() != waiter) {
                oldest.getValue().signal();
            }
        }
    }

    /** An older ticket of this node waits at the key: released once it left the key, or its order changed. */
    record OlderTicket(String key, BooleanSupplier gone) implements Blocker {
        @Override
        public boolean released() {
            return gone.getAsBoolean();
        }
    }
}
