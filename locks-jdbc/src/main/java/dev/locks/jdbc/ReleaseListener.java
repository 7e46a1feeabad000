package dev.locks.jdbc;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * This node's one listening connection: {@code LISTEN <prefix>released} on a connection of its own, taken from
 * the application's {@link DataSource} and kept, read by one daemon thread through
 * {@link PGConnection#getNotifications(int)}. Each notice carries one released key.
 *
 * <p>When the connection fails (an outage), the thread reconnects with back-off; every time it listens again
 * it runs {@code missed}, since releases may have gone unseen meanwhile. While no notice comes, a cheap
 * {@code SELECT 1} every few seconds makes sure a silently dead connection (a paused server) is noticed.
 * Only this class names the PostgreSQL driver; it is loaded only when the driver is present.
 */
final class ReleaseListener implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ReleaseListener.class.getName());
    private static final int POLL_MILLIS = 250;
    private static final long PROBE_NANOS = 5_000_000_000L;
    private static final long MAX_BACKOFF_MILLIS = 2_000;

    private final DataSource dataSource;
    private final String channel;
    private final int timeoutMillis;
    private final Consumer<String> released;
    private final Runnable missed;
    private final Runnable lost;
    private final Thread thread;
    private volatile boolean closed;
    private volatile int confirmations;

    /**
     * @param missed run each time it listens (again): releases may have gone unseen
     * @param lost run when the listening connection fails: the node's other connections most likely failed too
     */
    ReleaseListener(DataSource dataSource, String channel, int timeoutMillis, Consumer<String> released,
            Runnable missed, Runnable lost) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.timeoutMillis = timeoutMillis;
        this.released = released;
        this.missed = missed;
        this.lost = lost;
        this.thread = Daemons.named("locks-jdbc-listener").newThread(this::run);
    }

    /** Whether the PostgreSQL driver is on the classpath (else nobody can listen: waiters poll). */
    static boolean driverPresent() {
        try {
            Class.forName("org.postgresql.PGConnection", false, ReleaseListener.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    void start() {
        thread.start();
    }

    /** How many times this node began listening (tests: it listens again after an outage). */
    int confirmations() {
        return confirmations;
    }

    private void run() {
        long backoff = 50;
        boolean down = false;
        while (!closed) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(true);
                connection.setNetworkTimeout(Runnable::run, timeoutMillis);
                PGConnection listening = connection.unwrap(PGConnection.class);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + channel);
                }
                if (down) {
                    LOG.log(Level.INFO, "listening for lock releases on '" + channel + "' again");
                }
                down = false;
                backoff = 50;
                confirmations++;
                missed.run();
                listen(connection, listening);
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                if (!down) {
                    lost.run();
                    LOG.log(Level.WARNING, "lost the connection listening for lock releases on '" + channel
                            + "'; waiters poll at their retry interval until it is back: " + e.getMessage());
                    down = true;
                }
                if (!pause(backoff)) {
                    return;
                }
                backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
            }
        }
    }

    private void listen(Connection connection, PGConnection listening) throws SQLException {
        long lastHeard = System.nanoTime();
        while (!closed) {
            PGNotification[] notices = listening.getNotifications(POLL_MILLIS);
            if (notices != null && notices.length > 0) {
                lastHeard = System.nanoTime();
                for (PGNotification notice : notices) {
                    if (channel.equals(notice.getName())) {
                        released.accept(notice.getParameter());
                    }
                }
            } else if (System.nanoTime() - lastHeard > PROBE_NANOS) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SELECT 1");
                }
                lastHeard = System.nanoTime();
            }
        }
    }

    private boolean pause(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    /** Stops listening; the connection goes back to the application's pool. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(2L * POLL_MILLIS + timeoutMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
