package dev.locks.jdbc;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * This node's one listening connection per {@link DataSource}: every {@code LISTEN} of the node's lock
 * registries and compute caches on that data source (release notices, ended computations) shares it, on a
 * connection of its own taken from the data source and kept, read by one daemon thread through
 * {@link PGConnection#getNotifications(int)}. It opens with the first {@link #listen subscription} and closes
 * with the last.
 *
 * <p>When the connection fails (an outage), the thread reconnects with back-off; each time a subscription
 * listens (again), its {@code missed} runs, since notices may have gone unseen meanwhile. While no notice comes,
 * a cheap {@code SELECT 1} every few seconds makes sure a silently dead connection (a paused server) is noticed.
 * Only this class names the PostgreSQL driver; it is loaded only when the driver is present.
 */
final class NodeListener {

    private static final System.Logger LOG = System.getLogger(NodeListener.class.getName());
    private static final int POLL_MILLIS = 250;
    private static final long PROBE_NANOS = 5_000_000_000L;
    private static final long MAX_BACKOFF_MILLIS = 2_000;

    /** The listener of each data source that this JVM listens on; guarded by the class. */
    private static final Map<DataSource, NodeListener> LISTENING = new IdentityHashMap<>();

    private final DataSource dataSource;
    private final int timeoutMillis;
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean closed;

    private NodeListener(DataSource dataSource, int timeoutMillis) {
        this.dataSource = dataSource;
        this.timeoutMillis = timeoutMillis;
        this.thread = Daemons.named("locks-jdbc-listener").newThread(this::run);
    }

    /** Whether the PostgreSQL driver is on the classpath (else nobody can listen: waiters poll). */
    static boolean driverPresent() {
        try {
            Class.forName("org.postgresql.PGConnection", false, NodeListener.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Listens on {@code channel} on the node's connection to {@code dataSource}, opening it if this is its first
     * subscription (the database need not be up yet).
     *
     * @param timeoutMillis the connection's network timeout, if this subscription opens it
     * @param noticed given each notice's payload
     * @param missed run each time the subscription listens (again): notices may have gone unseen
     * @param lost run when the listening connection fails: the subscriber's other connections most likely did
     */
    static Subscription listen(DataSource dataSource, int timeoutMillis, String channel, Consumer<String> noticed,
            Runnable missed, Runnable lost) {
        synchronized (NodeListener.class) {
            NodeListener listener = LISTENING.get(dataSource);
            boolean first = listener == null;
            if (first) {
                listener = new NodeListener(dataSource, timeoutMillis);
                LISTENING.put(dataSource, listener);
            }
            Subscription subscription = listener.new Subscription(channel, noticed, missed, lost);
            listener.subscriptions.add(subscription);
            if (first) {
                listener.thread.start();
            }
            return subscription;
        }
    }

    /** One {@code LISTEN} of one subscriber; {@link #close()} ends it (and the connection, with the last one). */
    final class Subscription implements AutoCloseable {

        private final String channel;
        private final Consumer<String> noticed;
        private final Runnable missed;
        private final Runnable lost;
        private volatile int confirmations;
        /** Whether it listens on the current connection (read and written by the listener's thread only). */
        private boolean listening;

        private Subscription(String channel, Consumer<String> noticed, Runnable missed, Runnable lost) {
            this.channel = channel;
            this.noticed = noticed;
            this.missed = missed;
            this.lost = lost;
        }

        /** How many times it began listening (tests: it listens again after an outage). */
        int confirmations() {
            return confirmations;
        }

        /** Stops listening; the last subscription's close gives the connection back to the application's pool. */
        @Override
        public void close() {
            NodeListener listener = NodeListener.this;
            boolean last;
            synchronized (NodeListener.class) {
                if (!subscriptions.remove(this)) {
                    return;
                }
                last = subscriptions.isEmpty();
                if (last) {
                    LISTENING.remove(dataSource, listener);
                    closed = true;
                }
            }
            if (last) {
                listener.stop();
            }
        }
    }

    private void run() {
        long backoff = 50;
        boolean down = false;
        while (!closed) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(true);
                connection.setNetworkTimeout(Runnable::run, timeoutMillis);
                PGConnection listening = connection.unwrap(PGConnection.class);
                subscriptions.forEach(subscription -> subscription.listening = false);
                listenToNew(connection);
                if (down) {
                    LOG.log(Level.INFO, "listening for notices again");
                }
                down = false;
                backoff = 50;
                listen(connection, listening);
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                if (!down) {
                    subscriptions.forEach(subscription -> guarded(subscription, subscription.lost));
                    LOG.log(Level.WARNING, "lost the connection listening for notices on " + channels()
                            + "; waiters poll until it is back: " + e.getMessage());
                    down = true;
                }
                if (!pause(backoff)) {
                    return;
                }
                backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
            }
        }
    }

    /** {@code LISTEN}s on the channels of the subscriptions that do not listen yet, then tells each. */
    private void listenToNew(Connection connection) throws SQLException {
        List<Subscription> added = new ArrayList<>();
        for (Subscription subscription : subscriptions) {
            if (!subscription.listening) {
                added.add(subscription);
            }
        }
        if (added.isEmpty()) {
            return;
        }
        Set<String> channels = new LinkedHashSet<>();
        added.forEach(subscription -> channels.add(subscription.channel));
        try (Statement statement = connection.createStatement()) {
            for (String channel : channels) {
                statement.execute("LISTEN " + channel); // again for a channel it listens on: no harm
            }
        }
        for (Subscription subscription : added) {
            subscription.listening = true;
            subscription.confirmations++;
            guarded(subscription, subscription.missed);
        }
    }

    private void listen(Connection connection, PGConnection listening) throws SQLException {
        long lastHeard = System.nanoTime();
        while (!closed) {
            listenToNew(connection);
            PGNotification[] notices = listening.getNotifications(POLL_MILLIS);
            if (notices != null && notices.length > 0) {
                lastHeard = System.nanoTime();
                for (PGNotification notice : notices) {
                    deliver(notice);
                }
            } else if (System.nanoTime() - lastHeard > PROBE_NANOS) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SELECT 1");
                }
                lastHeard = System.nanoTime();
            }
        }
    }

    private void deliver(PGNotification notice) {
        for (Subscription subscription : subscriptions) {
            if (subscription.listening && subscription.channel.equals(notice.getName())) {
                guarded(subscription, () -> subscription.noticed.accept(notice.getParameter()));
            }
        }
    }

    /** Runs a subscriber's callback; one that throws is logged, and the listening goes on. */
    private static void guarded(Subscription subscription, Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "a subscriber of '" + subscription.channel + "' failed", e);
        }
    }

    private String channels() {
        Set<String> channels = new LinkedHashSet<>();
        subscriptions.forEach(subscription -> channels.add(subscription.channel));
        return channels.toString();
    }

    private boolean pause(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    /** Ends the thread; the connection goes back to the application's pool. */
    private void stop() {
        thread.interrupt();
        try {
            thread.join(2L * POLL_MILLIS + timeoutMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
