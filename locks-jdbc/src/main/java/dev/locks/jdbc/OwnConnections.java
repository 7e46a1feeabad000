package dev.locks.jdbc;

import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * A lock registry's or compute cache's own connections: a few taken from the application's {@link DataSource}
 * and kept, never returned to its pool while it runs, so that it never waits for a connection that the
 * application's own transactions hold (a pool exhausted by callers that hold their transactions open while
 * they lock would otherwise deadlock), and never joins a caller's transaction. Each is in auto-commit: every
 * call is one transaction of its own.
 *
 * <p>A connection that failed is closed and replaced, in the background, on the next demand; a caller waits
 * for a connection at most the {@linkplain #OwnConnections timeout}, and not at all once an attempt to open
 * one failed after it began waiting (the database is down: the caller reports an outage at once).
 */
final class OwnConnections implements AutoCloseable {

    /** One call on a connection. */
    @FunctionalInterface
    interface Call<T> {
        T on(Connection connection) throws SQLException;
    }

    private final DataSource dataSource;
    private final int size;
    private final int timeoutMillis;
    private final ExecutorService opener;
    private final Deque<Connection> idle = new ArrayDeque<>();
    /** Opened and not used yet: a failure on one of them is not a stale connection's. */
    private final Set<Connection> fresh = Collections.newSetFromMap(new IdentityHashMap<>());
    private int open;
    private long failures;
    private SQLException lastFailure;
    private boolean closed;

    /**
     * @param size how many connections to keep at most
     * @param timeoutMillis the network timeout of each connection, and the longest wait for one
     */
    OwnConnections(DataSource dataSource, int size, int timeoutMillis) {
        this.dataSource = dataSource;
        this.size = size;
        this.timeoutMillis = timeoutMillis;
        this.opener = Executors.newSingleThreadExecutor(Daemons.named("locks-jdbc-connect"));
    }

    /** Opens every connection now, in the background (the database need not be up). */
    synchronized void prewarm() {
        while (open < size) {
            open++;
            opener.execute(this::openOne);
        }
    }

    /** How many connections are open and idle (tests). */
    synchronized int idleCount() {
        return idle.size();
    }

    /**
     * Runs {@code call} on one of the connections; a connection on which it failed is replaced. A call that
     * failed on a connection kept from before (which may have died with a restarted server while it was idle)
     * runs once more on a new one, unless it timed out (a server that does not answer would only make the
     * caller wait twice): every call of the store may run twice for the same owner.
     *
     * @throws SQLException what the call threw, or why no connection could be had in time
     */
    <T> T run(Call<T> call) throws SQLException {
        Borrowed borrowed = borrow();
        try {
            return runOn(borrowed.connection(), call);
        } catch (SQLException e) {
            if (!borrowed.kept() || !isBroken(e) || timedOut(e)) {
                throw e;
            }
            try {
                return runOn(borrow().connection(), call);
            } catch (SQLException again) {
                again.addSuppressed(e);
                throw again;
            }
        }
    }

    private <T> T runOn(Connection connection, Call<T> call) throws SQLException {
        boolean healthy = false;
        try {
            T result = call.on(connection);
            healthy = true;
            return result;
        } catch (SQLException e) {
            healthy = !isBroken(e) && isOpen(connection);
            throw e;
        } finally {
            giveBack(connection, healthy);
        }
    }

    /** A connection, and whether it was kept from before (else just opened). */
    private record Borrowed(Connection connection, boolean kept) {
    }

    /**
     * A connection, waiting at most the timeout. An interrupted caller still gets one (a round trip never fails
     * because the caller's interrupt status is set); its interrupt status is kept.
     */
    private synchronized Borrowed borrow() throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        long failuresBefore = failures;
        boolean interrupted = false;
        try {
            for (;;) {
                if (closed) {
                    throw new SQLException("its own connections are closed (it was closed)", "08003");
                }
                Connection connection = idle.pollFirst();
                if (connection != null) {
                    boolean kept = !fresh.remove(connection);
                    return new Borrowed(connection, kept);
                }
                if (open < size) {
                    open++;
                    opener.execute(this::openOne);
                }
                if (failures != failuresBefore) {
                    throw new SQLException("could not open a connection: " + lastFailure.getMessage(), "08001",
                            lastFailure);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new SQLTimeoutException("none of its own connections free within "
                            + timeoutMillis + " ms" + (lastFailure == null ? ""
                                    : " (last failure: " + lastFailure.getMessage() + ")"), "08001");
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void openOne() {
        Connection connection = null;
        SQLException failure = null;
        try {
            connection = dataSource.getConnection();
            connection.setAutoCommit(true);
            // every function call decides on what it reads: each statement must see what committed before it
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            connection.setNetworkTimeout(Runnable::run, timeoutMillis);
        } catch (SQLException | RuntimeException e) {
            failure = e instanceof SQLException sql ? sql : new SQLException(e.toString(), "08001", e);
            closeQuietly(connection);
            connection = null;
        }
        synchronized (this) {
            if (connection != null && !closed) {
                idle.addLast(connection);
                fresh.add(connection);
            } else {
                open--;
                if (failure != null) {
                    failures++;
                    lastFailure = failure;
                }
                closeQuietly(connection);
            }
            notifyAll();
        }
    }

    private synchronized void giveBack(Connection connection, boolean healthy) {
        if (healthy && !closed) {
            idle.addFirst(connection); // the most recently used first: idle ones may be dropped by a proxy
        } else {
            open--;
            closeQuietly(connection);
            if (!closed) {
                discardIdle();
            }
        }
        notifyAll();
    }

    /**
     * Closes the idle connections: one failed (or the listening connection did), so they most likely died
     * with it; they are opened again on demand.
     */
    synchronized void discardIdle() {
        for (Connection connection : idle) {
            fresh.remove(connection);
            closeQuietly(connection);
            open--;
        }
        idle.clear();
    }

    /** A connection error (SQL state class 08), a server shutdown (57P), or a timeout: the connection is gone. */
    static boolean isBroken(SQLException e) {
        String state = e.getSQLState();
        return e instanceof SQLTimeoutException || state == null || state.startsWith("08") || state.startsWith("57P");
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

    /** Closes the connections (their pool gets them back); later calls fail. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            idle.forEach(OwnConnections::closeQuietly);
            idle.clear();
            fresh.clear();
            notifyAll();
        }
        opener.shutdownNow();
    }
}
