package dev.locks.redis;

import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConnection;

/**
 * Every Redis round trip of the backend: bounded by {@code locks.redis.timeout}, and immune to the calling
 * thread's interrupt status (SPEC section 3, "Interrupts").
 *
 * <p><b>Bounded</b> (SPEC 8, "Bounded round trips"): the client's own command timeout is the application's (Lettuce
 * waits 60 s by default), so a round trip that has not answered within this one's timeout is given up: one
 * daemon thread ({@code locks-redis-timeouts}) looks at the round trips in flight every twentieth of the
 * shortest timeout (10 to 100 ms) and interrupts the thread of one that is late, which makes Lettuce cancel the
 * command it awaits; the round trip then fails with a {@link QueryTimeoutException} naming the timeout, never
 * sent again. A client whose waits an interrupt does not end (Jedis, reading a socket) is bounded by its own
 * socket timeout instead, and its late answer is kept. Getting a connection is not part of the round trip
 * ({@link #connectingUntimed}): a first connection (the client's start, a cold JVM on a loaded machine) takes
 * as long as the client's connect timeout allows. The cost per round trip is an add to and a remove from a
 * concurrent set.
 *
 * <p><b>Interrupts</b>: Lettuce fails a command with "Redis command interrupted" when the thread that waits for
 * its reply is interrupted, before or during the wait. A round trip runs with the status cleared, and the
 * status is restored afterwards, so an interrupted thread still takes free keys, releases them, and stores the
 * value it computed; the engine then sees the status and stops waiting where it would have to wait. An
 * interrupt that arrives while the reply is awaited still makes Lettuce give the command up. A command that is
 * safe to send again is then sent again (a few times at most, within the same timeout), after
 * {@code beforeRepeat} has undone whatever the abandoned one may still do; others fail as before.
 */
final class RedisRoundTrip {

    /** The default of {@code locks.redis.timeout}. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    /** How many times a command given up because of an interrupt is sent in all. */
    private static final int SENDS = 3;

    private static final Set<InFlight> IN_FLIGHT = ConcurrentHashMap.newKeySet();
    /** The calling thread's innermost round trip ({@link #progress()}). */
    private static final ThreadLocal<InFlight> CURRENT = new ThreadLocal<>();

    private static volatile long tickNanos = TimeUnit.MILLISECONDS.toNanos(100);
    private static Thread watcher;

    private final long timeoutNanos;
    private final String timeoutText;

    /** @param timeout the longest a round trip may take (> 0) */
    RedisRoundTrip(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be a positive duration, was " + timeout);
        }
        this.timeoutNanos = timeout.toNanos();
        this.timeoutText = timeout.toString().substring(2).toLowerCase(Locale.ROOT);
        startWatching(timeoutNanos);
    }

    /** Runs {@code command} with the interrupt status cleared, then restores it. */
    <T> T call(Supplier<T> command) {
        return call(command, null);
    }

    /** Runs {@code command} with the interrupt status cleared and sends it again if an interrupt cut it off. */
    <T> T repeatable(Supplier<T> command) {
        return call(command, () -> { });
    }

    /**
     * Runs {@code command} with the interrupt status cleared, then restores it.
     *
     * @param beforeRepeat run before the command is sent again because an interrupt cut the last one off;
     *        {@code null} when it must not be sent again
     * @throws QueryTimeoutException when the round trip took longer than the timeout
     */
    <T> T call(Supplier<T> command, Runnable beforeRepeat) {
        boolean interrupted = Thread.interrupted();
        InFlight flight = new InFlight(Thread.currentThread(), timeoutNanos);
        InFlight outer = CURRENT.get();
        CURRENT.set(flight);
        IN_FLIGHT.add(flight);
        try {
            for (int send = 1; ; send++) {
                T result;
                try {
                    result = command.get();
                } catch (RuntimeException e) {
                    if (flight.end()) {
                        throw late(e);
                    }
                    boolean cutOff = Thread.interrupted();
                    interrupted |= cutOff;
                    if (!cutOff || beforeRepeat == null || send == SENDS) {
                        throw e;
                    }
                    flight.reopen();
                    beforeRepeat.run();
                    continue;
                }
                flight.end(); // an answer, even one the watcher found late (a client deaf to interrupts), is kept
                return result;
            }
        } finally {
            IN_FLIGHT.remove(flight);
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Gives the calling thread's round trip, if any, its whole timeout again from now: for a call made of several
     * round trips (a {@code SCAN} through many batches), each of which is bounded.
     */
    static void progress() {
        InFlight flight = CURRENT.get();
        if (flight != null) {
            flight.extend();
        }
    }

    /**
     * {@code factory}, whose {@link RedisConnectionFactory#getConnection()} and
     * {@link RedisConnectionFactory#getClusterConnection()} do not count against the calling round trip's timeout:
     * the timeout starts anew once the connection is had. For the stores' own commands only (never for a
     * subscription, which needs the client's own factory).
     */
    static RedisConnectionFactory connectingUntimed(RedisConnectionFactory factory) {
        return new RedisConnectionFactory() {
            @Override
            public RedisConnection getConnection() {
                return untimed(factory::getConnection);
            }

            @Override
            public RedisClusterConnection getClusterConnection() {
                return untimed(factory::getClusterConnection);
            }

            @Override
            public RedisSentinelConnection getSentinelConnection() {
                return factory.getSentinelConnection();
            }

            @Override
            public boolean getConvertPipelineAndTxResults() {
                return factory.getConvertPipelineAndTxResults();
            }

            @Override
            public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
                return factory.translateExceptionIfPossible(ex);
            }
        };
    }

    private static <C> C untimed(Supplier<C> connect) {
        InFlight flight = CURRENT.get();
        if (flight == null) {
            return connect.get();
        }
        flight.pause();
        try {
            return connect.get();
        } finally {
            flight.resume();
        }
    }

    private QueryTimeoutException late(RuntimeException cause) {
        return new QueryTimeoutException("Redis did not answer within " + timeoutText + " (locks.redis.timeout)",
                cause);
    }

    /** One round trip in flight: its thread and deadline; {@link #TIMED_OUT} once the watcher interrupted it. */
    private static final class InFlight {

        private static final int RUNNING = 0;
        private static final int TIMED_OUT = 1;
        private static final int DONE = 2;

        private final Thread thread;
        private final long timeoutNanos;
        private volatile long deadline;
        private int state = RUNNING;
        private boolean paused;

        InFlight(Thread thread, long timeoutNanos) {
            this.thread = thread;
            this.timeoutNanos = timeoutNanos;
            this.deadline = System.nanoTime() + timeoutNanos;
        }

        /** From the watcher: interrupts the thread if the round trip is still running past its deadline. */
        synchronized void expireIfLate(long now) {
            if (state == RUNNING && !paused && now - deadline >= 0) {
                state = TIMED_OUT;
                thread.interrupt(); // inside the monitor: end() sees the interrupt once it sees TIMED_OUT
            }
        }

        /** Ends the round trip: whether it timed out (then the watcher's interrupt is cleared). */
        synchronized boolean end() {
            boolean late = state == TIMED_OUT;
            state = DONE;
            if (late) {
                Thread.interrupted();
            }
            return late;
        }

        /** Runs again, for a command sent again within the same deadline. */
        synchronized void reopen() {
            state = RUNNING;
        }

        /** While a connection is being had: not timed. */
        synchronized void pause() {
            paused = true;
        }

        /** The connection is had: the whole timeout from now. */
        synchronized void resume() {
            paused = false;
            extend();
        }

        void extend() {
            deadline = System.nanoTime() + timeoutNanos;
        }
    }

    /** Starts the watcher (once), ticking at least every twentieth of {@code timeoutNanos} (10 to 100 ms). */
    private static synchronized void startWatching(long timeoutNanos) {
        long tick = Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(tickNanos, timeoutNanos / 20));
        tickNanos = Math.min(tickNanos, tick);
        if (watcher == null) {
            watcher = new Thread(RedisRoundTrip::watch, "locks-redis-timeouts");
            watcher.setDaemon(true);
            watcher.start();
        }
    }

    private static void watch() {
        for (;;) {
            LockSupport.parkNanos(tickNanos);
            if (IN_FLIGHT.isEmpty()) {
                continue;
            }
            long now = System.nanoTime();
            for (InFlight flight : IN_FLIGHT) {
                flight.expireIfLate(now);
            }
        }
    }
}
