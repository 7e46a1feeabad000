package dev.locks.benchmarks.handoff;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Two threads passing one lock back and forth, {@code handOffs} times. Each pass is measured from just before
 * the holder's release to just after the waiter's acquire returns.
 *
 * <p>The holder releases only once the other thread is parked inside its acquire (its thread state is
 * {@code WAITING} or {@code TIMED_WAITING}), and after releasing it does not try again until the other thread
 * holds the lock: no pass is a barging re-acquire, every one is a real hand-off to a waiter. A waiter that polls
 * (the seed's design) is released at a random moment of its sleep ({@code releasePhaseNanos} > 0), as a real
 * holder's work would end; releasing it right as it falls asleep would measure its whole interval instead.
 */
final class Duel {

    private static final int DONE = -1;

    private final Contender lock;
    private final long releasePhaseNanos;
    private final long[] latencies;
    private final AtomicInteger passes = new AtomicInteger();
    private final Thread[] players = new Thread[2];
    /** 1 while a player is inside its acquire. */
    private final AtomicIntegerArray acquiring = new AtomicIntegerArray(2);
    private volatile int holder = DONE - 1;
    private volatile long releasedAt;
    private volatile Throwable failure;

    private Duel(Contender lock, int handOffs, long releasePhaseNanos) {
        this.lock = lock;
        this.releasePhaseNanos = releasePhaseNanos;
        this.latencies = new long[handOffs];
    }

    /** Runs one duel and returns its hand-off latencies in nanoseconds. */
    static long[] play(Contender lock, int handOffs, long releasePhaseNanos) throws InterruptedException {
        Duel duel = new Duel(lock, handOffs, releasePhaseNanos);
        for (int i = 0; i < 2; i++) {
            int me = i;
            duel.players[i] = new Thread(() -> duel.run(me), "duel-" + i);
        }
        duel.players[0].start();
        duel.await(() -> duel.holder == 0 || duel.failure != null);
        duel.players[1].start();
        for (Thread player : duel.players) {
            player.join();
        }
        if (duel.failure != null) {
            throw new IllegalStateException("hand-off failed", duel.failure);
        }
        return duel.latencies;
    }

    private void run(int me) {
        try {
            Object handle;
            if (me == 0) {
                handle = lock.lock();
                holder = 0;
            } else {
                handle = acquireAsWaiter(me);
            }
            while (true) {
                if (passes.get() >= latencies.length) {
                    lock.unlock(handle);
                    holder = DONE;
                    return;
                }
                int other = 1 - me;
                await(() -> isParkedInAcquire(other));
                if (releasePhaseNanos > 0) {
                    LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(releasePhaseNanos));
                }
                releasedAt = System.nanoTime();
                lock.unlock(handle);
                await(() -> holder == other || holder == DONE);
                if (holder == DONE) {
                    return;
                }
                handle = acquireAsWaiter(me);
            }
        } catch (Throwable e) {
            failure = e;
            holder = DONE;
        }
    }

    private Object acquireAsWaiter(int me) throws InterruptedException {
        acquiring.set(me, 1);
        Object handle = lock.lock();
        long acquiredAt = System.nanoTime();
        acquiring.set(me, 0);
        int pass = passes.getAndIncrement();
        if (pass < latencies.length) {
            latencies[pass] = acquiredAt - releasedAt;
        }
        holder = me;
        return handle;
    }

    private boolean isParkedInAcquire(int player) {
        if (acquiring.get(player) == 0) {
            return false;
        }
        Thread.State state = players[player].getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
    }

    /** Spins briefly, then yields the core (two cores are shared by both players and the machine). */
    private void await(BooleanSupplier condition) {
        for (int spins = 0; !condition.getAsBoolean(); spins++) {
            if (failure != null) {
                throw new IllegalStateException("the other player failed", failure);
            }
            if (spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }
}
