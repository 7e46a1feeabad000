package dev.locks.jdbc;

import dev.locks.spi.RemoteLockStore;
import java.lang.System.Logger.Level;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;

/**
 * A lock registry's or compute cache's own connections: a few taken from the application's {@link DataSource}
 * and kept, never returned to its pool while it runs, so that it never waits for a connection that the
 * application's own transactions hold (a pool exhausted by callers that hold their transactions open while
 * they lock would otherwise deadlock), and never joins a caller's transaction. Each is in auto-commit: every
 * call is one transaction of its own.
 *
 * <ul>
 *   <li><b>The server gives up first.</b> Each connection's session has a {@code statement_timeout} and a
 *       {@code lock_timeout} a little shorter than the round-trip {@linkplain #OwnConnections timeout} (the
 *       client's network timeout), so that a statement stuck behind a table lock (a migration) is cancelled by the
 *       server itself before the client gives up: its connection stays usable (no new server connection per
 *       abandoned call) and nothing it would have done happens later. Both are set back as they were before the
 *       connection goes back to the application's pool.</li>
 *   <li><b>Callers wait their turn.</b> A caller that finds every connection busy queues, and the connections are
 *       handed over in arrival order. While calls are in flight on them (each ends within the network timeout)
 *       it waits its turn: a busy node is not an outage. It fails when an attempt to open a connection failed, or
 *       when no call was in flight and none came back within the timeout (the database stopped answering). It waits
 *       no longer than its own wait either (an acquire's wait time; one timeout for a caller that does not wait),
 *       and then gives up as {@link Busy}, having sent nothing: its place in the queue never makes it wait the
 *       timeout once per caller ahead of it. A health
 *       {@linkplain #ping() ping} goes to the head of the queue, and concurrent pings share one round trip.</li>
 *   <li><b>A call whose outcome is unknown</b> (sent, never answered: a paused server) may still run when the
 *       server comes back. Its server process is remembered, and {@link #afterAbandoned} runs an undo only once
 *       those processes are surely gone (terminated and no longer listed), in the background, tried again until it
 *       gets through: an undo that ran before the abandoned call would undo nothing.</li>
 * </ul>
 *
 * <p>A connection that failed is closed and replaced, in the background, on the next demand; a caller does not
 * wait at all once an attempt to open one failed after it began waiting (the database is down: the caller
 * reports an outage at once).
 */
final class OwnConnections implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(OwnConnections.class.getName());
    /** How long an undo after an abandoned call is tried again at most. */
    private static final long UNDO_GIVE_UP_NANOS = TimeUnit.MINUTES.toNanos(2);
    /** At most this many abandoned server processes are remembered (the oldest are forgotten first). */
    private static final int MAX_ABANDONED = 256;

    /** One call on a connection. */
    @FunctionalInterface
    interface Call<T> {
        T on(Connection connection) throws SQLException;
    }

    /**
     * One of the connections, with the server process that serves it ({@code pid} and {@code started}: a pid
     * alone may be reused) and the session's timeouts as they were before this class set its own.
     */
    private record Own(Connection connection, Dialect.Session session) {

        int pid() {
            return session.pid();
        }

        String started() {
            return session.started();
        }
    }

    /** A caller waiting for a connection, handed one directly when its turn comes. */
    private static final class Waiter {
        final Condition handedOver;
        Own handed;

        Waiter(Condition handedOver) {
            this.handedOver = handedOver;
        }
    }

    /**
     * No connection came free within the caller's wait, while calls in flight were answered (a busy node, not an
     * outage): the call was not sent.
     */
    static final class Busy extends SQLException {
        private static final long serialVersionUID = 1L;

        Busy(String message) {
            super(message);
        }
    }

    /**
     * A call sent on a connection that then failed without an answer from the server (a timeout, a broken
     * connection): it may have run, or still run. Same message and SQL state as what the driver threw.
     */
    static final class UnknownOutcome extends SQLException {
        private static final long serialVersionUID = 1L;

        UnknownOutcome(SQLException cause) {
            super(cause.getMessage(), cause.getSQLState(), cause.getErrorCode(), cause);
        }
    }

    private final DataSource dataSource;
    private final Dialect dialect;
    private final int size;
    private final int timeoutMillis;
    private final int serverTimeoutMillis;
    private final ExecutorService opener;
    private final ReentrantLock lock = new ReentrantLock();
    private final Deque<Own> idle = new ArrayDeque<>();
    private final Deque<Waiter> waiters = new ArrayDeque<>();
    /** Opened and not used yet: a failure on one of them is not a stale connection's. */
    private final Set<Connection> fresh = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Server processes of calls whose outcome is unknown, not known to be gone yet. */
    private final Deque<Own> abandoned = new ArrayDeque<>();
    private int open;
    /** How many are lent to calls in flight (each bounded by the network timeout). */
    private int lent;
    private long failures;
    /** When a call was last answered (its connection came back healthy). */
    private long lastReturnNanos = System.nanoTime();
    /** When a call was last left unanswered, or a connection could not be opened: later than the above, an outage. */
    private long lastUnansweredNanos = lastReturnNanos;
    private SQLException lastFailure;
    private boolean closed;
    private CompletableFuture<Void> ping;
    private ScheduledExecutorService undoer;

    /**
     * @param size how many connections to keep at most
     * @param timeoutMillis the network timeout of each connection, and the longest wait for one while none comes
     *        back; the server's own statement and lock timeouts are three quarters of it
     */
    OwnConnections(DataSource dataSource, int size, int timeoutMillis) {
        this(dataSource, Dialect.POSTGRESQL, size, timeoutMillis);
    }

    /** As {@link #OwnConnections(DataSource, int, int)}, on a database of {@code dialect}. */
    OwnConnections(DataSource dataSource, Dialect dialect, int size, int timeoutMillis) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.size = size;
        this.timeoutMillis = timeoutMillis;
        this.serverTimeoutMillis = serverTimeoutMillis(timeoutMillis);
        this.opener = Executors.newSingleThreadExecutor(Daemons.named("locks-jdbc-connect"));
    }

    /** The server's statement and lock timeout for a round-trip timeout: three quarters of it, at least 1 ms. */
    static int serverTimeoutMillis(int timeoutMillis) {
        return (int) Math.max(1, timeoutMillis * 3L / 4);
    }

    /** Opens every connection now, in the background (the database need not be up). */
    void prewarm() {
        lock.lock();
        try {
            while (open < size) {
                open++;
                opener.execute(this::openOne);
            }
        } finally {
            lock.unlock();
        }
    }

    /** How many connections are open and idle (tests). */
    int idleCount() {
        lock.lock();
        try {
            return idle.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs {@code call} on one of the connections; a connection on which it failed is replaced. A call that
     * failed on a connection kept from before (which may have died with a restarted server while it was idle)
     * runs once more on a new one, unless it timed out (a server that does not answer would only make the
     * caller wait twice): every call of the store may run twice for the same owner.
     *
     * @throws SQLException what the call threw ({@link UnknownOutcome} when it was sent and never answered), or
     *         why no connection could be had in time
     */
    <T> T run(Call<T> call) throws SQLException {
        return run(call, false, RemoteLockStore.UNBOUNDED_WAIT);
    }

    /**
     * {@link #run(Call)} for a caller that can wait {@code waitNanos} at most for a connection (as
     * {@link RemoteLockStore#tryAcquire(List, RemoteLockStore.Owner, long, RemoteLockStore.Ticket, long)} takes it:
     * {@link RemoteLockStore#ONE_ATTEMPT} waits one timeout at most).
     *
     * @throws Busy when no connection came free within it while the database still answered (nothing was sent)
     */
    <T> T run(Call<T> call, long waitNanos) throws SQLException {
        return run(call, false, waitNanos);
    }

    private <T> T run(Call<T> call, boolean first, long waitNanos) throws SQLException {
        Own own = borrow(first, waitNanos);
        boolean kept = !isFresh(own);
        try {
            return runOn(own, call);
        } catch (SQLException e) {
            if (!kept || !isBroken(e) || timedOut(e)) {
                throw e;
            }
            try {
                return runOn(borrow(true, RemoteLockStore.UNBOUNDED_WAIT), call);
            } catch (SQLException again) {
                again.addSuppressed(e);
                throw again;
            }
        }
    }

    /**
     * One round trip ({@code SELECT 1}) for a health check: at the head of the queue for a connection (it never
     * waits behind the lock traffic, only for the call in flight), and shared by concurrent callers (one round
     * trip answers every check that began while it was under way).
     */
    void ping() throws SQLException {
        CompletableFuture<Void> shared;
        boolean mine = false;
        lock.lock();
        try {
            if (ping == null) {
                ping = new CompletableFuture<>();
                mine = true;
            }
            shared = ping;
        } finally {
            lock.unlock();
        }
        if (mine) {
            try {
                run(connection -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("SELECT 1");
                        return null;
                    }
                }, true, RemoteLockStore.UNBOUNDED_WAIT);
                shared.complete(null);
            } catch (SQLException | RuntimeException e) {
                shared.completeExceptionally(e);
            } finally {
                lock.lock();
                try {
                    ping = null;
                } finally {
                    lock.unlock();
                }
            }
        }
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    shared.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // a round trip never fails because the caller's interrupt status is set
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof SQLException sql) {
                        throw sql;
                    }
                    throw (RuntimeException) e.getCause();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private <T> T runOn(Own own, Call<T> call) throws SQLException {
        boolean healthy = false;
        try {
            T result = call.on(own.connection());
            healthy = true;
            return result;
        } catch (SQLException e) {
            healthy = !isBroken(e) && isOpen(own.connection());
            if (!healthy && !answered(e)) {
                remember(own);
                throw new UnknownOutcome(e);
            }
            throw schemaNamed(e);
        } finally {
            giveBack(own, healthy);
        }
    }

    /**
     * A connection: an idle one when nobody waits before the caller, else the next one given back in the caller's
     * turn. It fails when an attempt to open one failed while it waited, or when no call was in flight and no
     * connection came back within the timeout (the database does not answer), or with {@link Busy} when the caller's
     * own wait ran out first (the database answers, the node is busy). An interrupted caller still gets one (a round
     * trip never fails because the caller's interrupt status is set); its interrupt status is kept.
     *
     * @param first whether to go before every waiting caller (a health ping, or the second try of a call)
     * @param waitNanos how long the caller waits at most ({@link RemoteLockStore#ONE_ATTEMPT}: one timeout;
     *        {@link RemoteLockStore#UNBOUNDED_WAIT}: while calls come back)
     */
    private Own borrow(boolean first, long waitNanos) throws SQLException {
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long limitNanos = waitNanos == RemoteLockStore.ONE_ATTEMPT ? timeoutNanos : Math.max(0, waitNanos);
        boolean interrupted = false;
        lock.lock();
        try {
            long began = System.nanoTime();
            long failuresBefore = failures;
            if (closed) {
                throw closedFailure();
            }
            if (first || waiters.isEmpty()) {
                Own own = idle.pollFirst();
                if (own != null) {
                    lent++;
                    return own;
                }
            }
            Waiter waiter = new Waiter(lock.newCondition());
            if (first) {
                waiters.addFirst(waiter);
            } else {
                waiters.addLast(waiter);
            }
            try {
                for (;;) {
                    if (waiter.handed != null) {
                        return waiter.handed;
                    }
                    if (closed) {
                        throw closedFailure();
                    }
                    if (open < size) {
                        open++;
                        opener.execute(this::openOne);
                    }
                    if (failures != failuresBefore) {
                        throw new SQLException("could not open a connection: " + lastFailure.getMessage(), "08001",
                                lastFailure);
                    }
                    // waiting behind calls in flight is not an outage (each of them ends within the network
                    // timeout, and a connection that failed is opened again, or fails this wait): only a wait in which
                    // no call was in flight and no connection came back is
                    long left = lent > 0 ? timeoutNanos
                            : Math.max(began, lastReturnNanos) + timeoutNanos - System.nanoTime();
                    if (left <= 0) {
                        throw new SQLTimeoutException("none of its own connections could be had within "
                                + timeoutMillis + " ms" + (lastFailure == null ? ""
                                        : " (last failure: " + lastFailure.getMessage() + ")"), "08001");
                    }
                    if (limitNanos != RemoteLockStore.UNBOUNDED_WAIT) {
                        long mine = limitNanos - (System.nanoTime() - began);
                        if (mine <= 0) {
                            throw lastUnansweredNanos - lastReturnNanos > 0 ? unanswered(limitNanos) : busy(limitNanos);
                        }
                        left = Math.min(left, mine);
                    }
                    try {
                        waiter.handedOver.awaitNanos(left);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                if (waiter.handed == null) {
                    waiters.remove(waiter);
                }
            }
        } finally {
            lock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Why a caller's wait for a connection ran out while the database still answered. Call holding the lock. */
    private Busy busy(long waitedNanos) {
        return new Busy("none of its " + size + " own connections came free within the caller's wait of "
                + TimeUnit.NANOSECONDS.toMillis(waitedNanos) + " ms (each was in use by another call), and the"
                + " database last answered " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastReturnNanos)
                + " ms ago (a busy node, not an outage; for more room raise locks.jdbc.connections, or the wait time)");
    }

    /**
     * Why a caller's wait for a connection ran out when the last the node saw of the database was a call it did not
     * answer within the timeout (or a connection it could not open), with no answer since. Call holding the lock.
     */
    private SQLTimeoutException unanswered(long waitedNanos) {
        return new SQLTimeoutException("none of its own connections came free within the caller's wait of "
                + TimeUnit.NANOSECONDS.toMillis(waitedNanos) + " ms, and the database has not answered since a call"
                + " timed out " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastUnansweredNanos) + " ms ago"
                + (lastFailure == null ? "" : " (last failure: " + lastFailure.getMessage() + ")"), "08001");
    }

    private static SQLException closedFailure() {
        return new SQLException("its own connections are closed (it was closed)", "08003");
    }

    private boolean isFresh(Own own) {
        lock.lock();
        try {
            return fresh.remove(own.connection());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Hands {@code own} to the first waiting caller, or keeps it idle: the most recently used first (idle ones may be
     * dropped by a proxy), one just opened last. Call holding the lock.
     */
    private void handOver(Own own, boolean opened) {
        Waiter next = waiters.pollFirst();
        if (next != null) {
            next.handed = own;
            lent++;
            next.handedOver.signal();
        } else if (opened) {
            idle.addLast(own);
        } else {
            idle.addFirst(own);
        }
    }

    private void openOne() {
        Own own = null;
        SQLException failure = null;
        Connection connection = null;
        try {
            connection = dataSource.getConnection();
            connection.setAutoCommit(true);
            // every function call decides on what it reads: each statement must see what committed before it
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            connection.setNetworkTimeout(Runnable::run, timeoutMillis);
            own = session(connection);
        } catch (SQLException | RuntimeException e) {
            failure = e instanceof SQLException sql ? sql : new SQLException(e.toString(), "08001", e);
            closeQuietly(connection);
        }
        lock.lock();
        try {
            if (own != null && !closed) {
                fresh.add(own.connection());
                handOver(own, true);
            } else {
                open--;
                if (failure != null) {
                    failures++;
                    lastFailure = failure;
                    lastUnansweredNanos = System.nanoTime();
                }
                if (own != null) {
                    restoreAndClose(own);
                }
                waiters.forEach(waiter -> waiter.handedOver.signal()); // each sees the failure, or opens again
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reads the server process and the session's timeouts as they were, and sets this class's own, in one round
     * trip (the materialized CTE reads them before the outer row sets them).
     */
    private Own session(Connection connection) throws SQLException {
        return new Own(connection, dialect.open(connection, serverTimeoutMillis));
    }

    /** What {@link #session} runs when a connection opens (tests leave it out of their counts of round trips). */
    static final String SESSION = "WITH before AS MATERIALIZED (SELECT current_setting('statement_timeout') AS s,"
            + " current_setting('lock_timeout') AS l) SELECT pg_backend_pid(), (SELECT backend_start::text FROM"
            + " pg_stat_activity WHERE pid = pg_backend_pid()), b.s, b.l, set_config('statement_timeout', ?, false),"
            + " set_config('lock_timeout', ?, false) FROM before b";

    /** Sets the session's timeouts back as they were, then gives the connection back to its pool. */
    private void restoreAndClose(Own own) {
        try {
            if (!own.connection().isClosed()) {
                dialect.restore(own.connection(), own.session());
            }
        } catch (SQLException ignored) {
            // broken: the pool drops it
        }
        closeQuietly(own.connection());
    }

    private void giveBack(Own own, boolean healthy) {
        List<Own> discarded = List.of();
        lock.lock();
        try {
            lent--;
            if (healthy && !closed) {
                lastReturnNanos = System.nanoTime();
                handOver(own, false);
                return;
            }
            open--;
            if (!closed) {
                discarded = takeIdle();
                waiters.forEach(waiter -> waiter.handedOver.signal()); // one of them opens a new one
            }
        } finally {
            lock.unlock();
        }
        if (healthy) {
            restoreAndClose(own); // closed meanwhile
        } else {
            closeQuietly(own.connection());
        }
        discarded.forEach(this::restoreAndClose);
    }

    /**
     * Closes the idle connections: one failed (or the listening connection did), so they most likely died
     * with it; they are opened again on demand.
     */
    void discardIdle() {
        List<Own> discarded;
        lock.lock();
        try {
            discarded = takeIdle();
        } finally {
            lock.unlock();
        }
        discarded.forEach(this::restoreAndClose);
    }

    private List<Own> takeIdle() {
        List<Own> taken = new ArrayList<>(idle);
        for (Own own : taken) {
            fresh.remove(own.connection());
            open--;
        }
        idle.clear();
        return taken;
    }

    /** A call on {@code own} was not answered: its server process is remembered, and the time. */
    private void remember(Own own) {
        lock.lock();
        try {
            lastUnansweredNanos = System.nanoTime();
            if (abandoned.size() == MAX_ABANDONED) {
                abandoned.pollFirst();
            }
            abandoned.addLast(own);
        } finally {
            lock.unlock();
        }
    }

    /**
     * When {@code failure} is (or hides) a call whose outcome is unknown, runs {@code undo} once every server
     * process of such calls is gone (terminated, then waited for: a call it was still running has committed or
     * rolled back by then), in the background, and again with back-off until it gets through (the database may
     * still be paused). Nothing when the call's outcome is known (the server answered, or it was never sent).
     *
     * @param what for the log, e.g. "release [a, b]"
     */
    void afterAbandoned(Throwable failure, String what, Call<?> undo) {
        if (!hidesUnknownOutcome(failure)) {
            return;
        }
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (undoer == null) {
                undoer = Executors.newSingleThreadScheduledExecutor(Daemons.named("locks-jdbc-undo"));
            }
            long giveUp = System.nanoTime() + UNDO_GIVE_UP_NANOS;
            undoer.execute(() -> undo(what, undo, giveUp, 50));
        } finally {
            lock.unlock();
        }
    }

    private void undo(String what, Call<?> undo, long giveUp, long delayMillis) {
        try {
            run(connection -> {
                endAbandoned(connection);
                return undo.on(connection);
            });
            LOG.log(Level.DEBUG, () -> "undid an abandoned call: " + what);
        } catch (SQLException | RuntimeException e) {
            lock.lock();
            try {
                if (closed || System.nanoTime() - giveUp > 0) {
                    LOG.log(Level.WARNING, () -> "could not " + what + " after a call whose outcome is unknown: "
                            + e.getMessage() + "; what it took expires with its lease");
                    return;
                }
                long next = Math.min(2 * delayMillis, 2_000);
                undoer.schedule(() -> undo(what, undo, giveUp, next), delayMillis, TimeUnit.MILLISECONDS);
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Terminates the remembered server processes of abandoned calls, and waits until none is listed any more
     * (at most the timeout); then forgets them.
     *
     * @throws SQLException when one is still there
     */
    private void endAbandoned(Connection connection) throws SQLException {
        List<Own> ended;
        lock.lock();
        try {
            ended = List.copyOf(abandoned);
        } finally {
            lock.unlock();
        }
        if (ended.isEmpty()) {
            return;
        }
        if (dialect != Dialect.POSTGRESQL) {
            dialect.endAbandoned(connection, ended.stream().map(Own::pid).toList(), timeoutMillis);
            forget(ended);
            return;
        }
        Integer[] pids = ended.stream().map(Own::pid).toArray(Integer[]::new);
        String[] starts = ended.stream().map(Own::started).toArray(String[]::new);
        String listed = "FROM pg_stat_activity a JOIN unnest(?::int[], ?::text[]) AS g(pid, started)"
                + " ON a.pid = g.pid AND a.backend_start::text = g.started";
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        try (PreparedStatement terminate = connection.prepareStatement("SELECT count(pg_terminate_backend(a.pid)) "
                + listed); PreparedStatement left = connection.prepareStatement("SELECT count(*) " + listed)) {
            terminate.setArray(1, connection.createArrayOf("int4", pids));
            terminate.setArray(2, connection.createArrayOf("text", starts));
            terminate.executeQuery().close();
            left.setArray(1, connection.createArrayOf("int4", pids));
            left.setArray(2, connection.createArrayOf("text", starts));
            for (;;) {
                try (ResultSet count = left.executeQuery()) {
                    count.next();
                    if (count.getLong(1) == 0) {
                        break;
                    }
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new SQLException("the server still runs a call whose outcome is unknown", "57014");
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SQLException("interrupted", "57014", e);
                }
            }
        }
        forget(ended);
    }

    private void forget(List<Own> ended) {
        lock.lock();
        try {
            abandoned.removeAll(ended);
        } finally {
            lock.unlock();
        }
    }

    /** Whether the server answered: an error it sent (the statement ended), not a timeout or a lost connection. */
    private static boolean answered(SQLException e) {
        return !timedOut(e) && !(e instanceof SQLTimeoutException) && e.getSQLState() != null
                && !e.getSQLState().startsWith("08");
    }

    private static boolean hidesUnknownOutcome(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof UnknownOutcome) {
                return true;
            }
            for (Throwable suppressed : cause.getSuppressed()) {
                if (suppressed instanceof UnknownOutcome) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A missing schema object (undefined function, table or column: the schema was dropped, or is older than
     * this library) named as such, instead of the server's own words (which suggest adding casts).
     */
    private SQLException schemaNamed(SQLException e) {
        String state = e.getSQLState();
        if (!dialect.missingObject(e)) {
            return e;
        }
        String first = String.valueOf(e.getMessage()).lines().findFirst().orElse("").replaceFirst("^ERROR:\\s*", "");
        return new SQLException("the locks schema is missing or older than this library (" + first + "): apply "
                + dialect.script() + ", or set locks.jdbc.initialize-schema=always (Builder.initializeSchema(true))",
                state, e);
    }

    /**
     * A connection error (SQL state class 08), a server shutdown (57P; MariaDB's 70100, its connection killed, or
     * 1053), or a timeout: the connection is gone.
     */
    static boolean isBroken(SQLException e) {
        String state = e.getSQLState();
        return e instanceof SQLTimeoutException || state == null || state.startsWith("08") || state.startsWith("57P")
                || state.equals("70100") || e.getErrorCode() == 1053;
    }

    /** A timeout, here or in the driver (a socket read that ran out of the network timeout). */
    private static boolean timedOut(SQLException e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLTimeoutException || cause instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static boolean isOpen(Connection connection) {
        try {
            return !connection.isClosed();
        } catch (SQLException closed) {
            return false;
        }
    }

    static void closeQuietly(AutoCloseable closeable) {
        if (closeable != null) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // closing a broken connection: nothing to do
            }
        }
    }

    /** Closes the connections (their pool gets them back, with the session as it found it); later calls fail. */
    @Override
    public void close() {
        List<Own> closing;
        ScheduledExecutorService undoing;
        lock.lock();
        try {
            closed = true;
            closing = new ArrayList<>(idle);
            idle.clear();
            fresh.clear();
            waiters.forEach(waiter -> waiter.handedOver.signal());
            undoing = undoer;
        } finally {
            lock.unlock();
        }
        closing.forEach(this::restoreAndClose);
        opener.shutdownNow();
        if (undoing != null) {
            undoing.shutdownNow();
        }
    }
}
