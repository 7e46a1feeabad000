package dev.locks.internal;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The time with which an uncontended in-memory acquire on the system clock stamps its lease: a volatile field
 * that one daemon thread per JVM (the ticker) sets to {@link System#nanoTime()} every {@link #TICK_NANOS},
 * read for a few nanoseconds where {@code System.nanoTime()} costs 20 to 30 on a virtual machine's clock.
 *
 * <p>The stamp is the last tick <em>rounded up</em> by {@link #SLACK_NANOS}: no earlier than the true time of the
 * read as long as the ticker keeps its pace, so that a lease's expiry ({@code stamp + lockTimeout}) is never before
 * the precise one, and at most {@code SLACK_NANOS} after it. When the ticker did not keep its pace (descheduled on
 * a loaded machine) the stamps read meanwhile may be early: the ticker then remembers when that tick ended
 * ({@link #acquiredAtMost}), and whoever judges a lease stale (the {@link LockTable}) judges it by that time
 * instead. So a lease is never judged expired before {@code lockTimeout} after it was taken, and is judged expired
 * within {@code lockTimeout + SLACK_NANOS}, or, when its tick was late, within {@code lockTimeout} after that
 * tick ended.
 *
 * <p>The ticker costs nothing while no registry uses it: it starts with the first stamp of a registry that
 * {@linkplain #use() uses} the clock, parks once a second has passed without a stamp (the next stamp reads
 * {@code System.nanoTime()} itself, then wakes it), and ends when the last such registry {@linkplain #release()
 * closes}.
 */
final class CoarseClock {

    /** How often the ticker reads the clock. */
    static final long TICK_NANOS = 1_000_000L;

    /** What a stamp adds to the tick it read: a tick lasts one period, and the ticker is allowed one more. */
    static final long SLACK_NANOS = 2 * TICK_NANOS;

    /** The ticker parks after this many ticks without a stamp. */
    static final int IDLE_TICKS = 1000;

    /** How many late ticks are remembered exactly; older ones are remembered by the longest of them. */
    static final int LATE_TICKS = 1024;

    /** The value of {@link #tick} while the ticker does not tick (idle, or stopped). */
    private static final long IDLE = Long.MIN_VALUE;

    /** The JVM's coarse clock, which every in-memory registry on the system clock shares. */
    static final CoarseClock SHARED = new CoarseClock("locks-coarse-clock");

    private final String threadName;
    /** The last tick; {@link #IDLE} while none is kept up to date. */
    private volatile long tick = IDLE;
    /** Whether a stamp was read since the ticker last looked (each stamp writes it only when it is false). */
    private volatile boolean used;
    /** The ticking thread; {@code null} when none. */
    private volatile Thread ticker;
    /** How many registries use this clock (guarded by this). */
    private int users;
    /** Ticks that lasted longer than the slack: the tick's value, and a time after it was replaced (guarded by this). */
    private final TreeMap<Long, Long> lateTicks = new TreeMap<>();
    /** Whether late ticks were forgotten, the newest of them, and the longest (guarded by this). */
    private boolean forgot;
    private long forgottenUpTo;
    private long forgottenLongest;

    private final int idleTicks;

    CoarseClock(String threadName) {
        this(threadName, IDLE_TICKS);
    }

    /** A clock whose ticker parks after {@code idleTicks} ticks without a stamp (tests: a short idle spell). */
    CoarseClock(String threadName, int idleTicks) {
        this.threadName = threadName;
        this.idleTicks = idleTicks;
    }

    /** A stamp: the last tick plus {@link #SLACK_NANOS}, or {@code System.nanoTime()} itself when no tick is kept. */
    long stamp() {
        if (!used) {
            used = true;
        }
        long last = tick;
        return last != IDLE ? last + SLACK_NANOS : wake();
    }

    /** A registry that stamps with this clock opened. */
    synchronized void use() {
        users++;
    }

    /** A registry that stamped with this clock closed: the last one stops the ticker, and waits for it to end. */
    void release() {
        Thread stopped;
        synchronized (this) {
            if (--users > 0 || ticker == null) {
                return;
            }
            stopped = ticker;
            ticker = null;
            idle();
        }
        LockSupport.unpark(stopped);
        try {
            stopped.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The ticking thread, for tests; {@code null} when none. */
    Thread ticker() {
        return ticker;
    }

    /** How many registries use this clock, for tests. */
    synchronized int users() {
        return users;
    }

    /** Ticks once on the calling thread, as the ticker does (tests drive a clock that no registry uses this way). */
    synchronized void tickNow() {
        if (tick == IDLE) {
            tick = System.nanoTime();
        } else {
            advance();
        }
    }

    /**
     * The latest time at which a lease stamped {@code stamp} by this clock can have been taken, judged at
     * {@code nowNanos} (a precise reading): {@code stamp} itself, unless the stamp's tick was late (then when it
     * ended) or is still the last one (then {@code nowNanos}). A judge that finds the stamp's tick still the last
     * one and already late ends that tick itself, as the ticker would have: a lease's staleness never waits for a
     * ticker that does not run (descheduled for seconds on a loaded machine, a stalled lock timeout of 20 ms was
     * not judged stale in 30 s).
     */
    synchronized long acquiredAtMost(long stamp, long nowNanos) {
        long read = stamp - SLACK_NANOS;
        if (read == tick) {
            if (nowNanos - read <= SLACK_NANOS) {
                return Math.max(stamp, nowNanos);
            }
            advance(); // records when the late tick ended: the lookup below finds it
        }
        Long ended = lateTicks.get(read);
        if (ended != null) {
            return Math.max(stamp, ended);
        }
        if (forgot && read - forgottenUpTo <= 0) {
            return Math.max(stamp, read + forgottenLongest);
        }
        return stamp;
    }

    /** Publishes a fresh tick when none is kept, starts or wakes the ticker, and returns the precise time. */
    private long wake() {
        long now = System.nanoTime();
        Thread parked = null;
        synchronized (this) {
            if (users > 0) {
                if (tick == IDLE) {
                    tick = now;
                }
                if (ticker == null) {
                    ticker = start();
                } else {
                    parked = ticker;
                }
            }
        }
        if (parked != null) {
            LockSupport.unpark(parked);
        }
        return now;
    }

    private Thread start() {
        Thread thread = new Thread(this::tickWhileUsed, threadName);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private void tickWhileUsed() {
        Thread self = Thread.currentThread();
        synchronized (this) {
            // the starter holds this monitor until it has published this thread as the ticker: without waiting for
            // it, the loop below could see no ticker yet and end at once, leaving a dead ticker and a tick that
            // never moves (CoarseClockTest saw one in three such starts)
        }
        int unused = 0;
        while (ticker == self) {
            LockSupport.parkNanos(this, TICK_NANOS);
            Thread.interrupted(); // nobody's to interrupt: a set status would make every park return at once
            synchronized (this) {
                if (ticker != self) {
                    return;
                }
                if (tick != IDLE) {
                    if (++unused < idleTicks || used) {
                        if (unused >= idleTicks) {
                            unused = 0;
                            used = false;
                        }
                        advance();
                        continue;
                    }
                    unused = 0;
                    idle();
                }
            }
            while (tick == IDLE && ticker == self) {
                LockSupport.park(this); // until a stamp wakes it, or the last registry closes
                Thread.interrupted();
            }
        }
    }

    /** Replaces the last tick by a fresh one (holding this monitor, as {@link #acquiredAtMost} does). */
    private void advance() {
        long last = tick;
        tick = System.nanoTime();
        ended(last);
    }

    /** Stops keeping the tick: the next stamps read the precise time (holding this monitor). */
    private void idle() {
        long last = tick;
        tick = IDLE;
        if (last != IDLE) {
            ended(last);
        }
    }

    /** The tick {@code last} was just replaced: remembers when, if it lasted longer than the slack. */
    private void ended(long last) {
        long ended = System.nanoTime(); // after the replacement: no stamp read {@code last} later than this
        if (last == IDLE || ended - last <= SLACK_NANOS) {
            return;
        }
        lateTicks.put(last, ended);
        if (lateTicks.size() > LATE_TICKS) {
            Map.Entry<Long, Long> oldest = lateTicks.pollFirstEntry();
            forgot = true;
            forgottenUpTo = oldest.getKey();
            forgottenLongest = Math.max(forgottenLongest, oldest.getValue() - oldest.getKey());
        }
    }
}
