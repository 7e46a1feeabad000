package dev.locks.jdbc.test;

import dev.locks.test.FreePorts;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A MariaDB server of a test's own: {@code mariadb-install-db} into a temporary directory (once per JVM; each server
 * copies it), {@code mariadbd --no-defaults} on a free loopback port with a socket in that directory, user
 * {@code root} without a password, a database {@code locks}; the log written at each commit but flushed once a
 * second (tests only: a killed server keeps what it committed, as PostgreSQL's does here; a machine crash would not).
 * Never the machine's server. As root, it runs as root ({@code --user=root}). Stopped by its pid (killed: an outage), restarted on the
 * same port; servers still running when the JVM exits are killed by a shutdown hook.
 *
 * <p>The tests reach it through MariaDB Connector/J or, as they would reach MySQL 8, through MySQL Connector/J
 * ({@link Driver}).
 */
public final class MariaDbServer implements AutoCloseable {

    /** The driver a data source goes through. */
    public enum Driver {
        MARIADB, MYSQL
    }

    private static final Set<MariaDbServer> RUNNING = ConcurrentHashMap.newKeySet();
    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(MariaDbServer::kill), "mariadb-reaper"));
    }

    private static Path template;

    private final Path dir;
    private int port;
    private Process process;

    private MariaDbServer(Path dir) {
        this.dir = dir;
    }

    /** A new server on a free loopback port, with an empty database {@code locks}. */
    public static MariaDbServer start() {
        MariaDbServer server = new MariaDbServer(tempDirectory());
        run(List.of("cp", "-a", template().resolve("data").toString(), server.dir.resolve("data").toString()));
        FreePorts.launch(port -> {
            server.port = port;
            server.launch();
        });
        try (Connection connection = server.connect(""); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE IF NOT EXISTS locks");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return server;
    }

    private static synchronized Path template() {
        if (template == null) {
            Path made = tempDirectory();
            List<String> command = new ArrayList<>(List.of("mariadb-install-db", "--no-defaults",
                    "--auth-root-authentication-method=normal", "--datadir=" + made.resolve("data"),
                    "--skip-test-db"));
            if (ROOT) {
                command.add("--user=root");
            }
            run(command);
            template = made;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(made), "mariadb-template-cleanup"));
        }
        return template;
    }

    private static Path tempDirectory() {
        try {
            return Files.createTempDirectory("mariadb-test-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void launch() {
        List<String> command = new ArrayList<>(List.of(mariadbd(), "--no-defaults", "--datadir=" + dir.resolve("data"),
                "--socket=" + dir.resolve("sock"), "--port=" + port, "--bind-address=127.0.0.1",
                "--pid-file=" + dir.resolve("pid"), "--log-error=" + dir.resolve("error.log"), "--skip-log-bin",
                "--skip-name-resolve", "--innodb-buffer-pool-size=32M", "--innodb-log-file-size=16M",
                "--innodb-flush-log-at-trx-commit=2", "--max-connections=300"));
        if (ROOT) {
            command.add("--user=root");
        }
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!answers()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("mariadbd did not start on port " + port + ": " + log());
            }
            if (System.nanoTime() - deadline > 0) {
                process.destroyForcibly();
                throw new IllegalStateException("mariadbd did not answer on port " + port + ": " + log());
            }
            sleep(50);
        }
        RUNNING.add(this);
    }

    private boolean answers() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            try (Connection connection = connect("")) {
                return true;
            }
        } catch (IOException | SQLException e) {
            return false;
        }
    }

    private static String mariadbd() {
        for (String candidate : List.of("/usr/sbin/mariadbd", "/usr/bin/mariadbd", "/usr/local/bin/mariadbd")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return "mariadbd";
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("error.log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    public int port() {
        return port;
    }

    /** The JDBC URL of the database {@code locks} through {@code driver}, with short connect timeouts. */
    public String jdbcUrl(Driver driver) {
        return driver == Driver.MARIADB
                ? "jdbc:mariadb://127.0.0.1:" + port + "/locks?connectTimeout=2000"
                : "jdbc:mysql://127.0.0.1:" + port + "/locks?connectTimeout=2000&useSSL=false"
                        + "&allowPublicKeyRetrieval=true";
    }

    /** A non-pooling data source through {@code driver}: each connection a new one, user root. */
    public DataSource dataSource(Driver driver) {
        return new DriverManagerDataSource(jdbcUrl(driver), "root", "");
    }

    /** A connection of the test's own (MariaDB Connector/J), to the database {@code locks}. */
    public Connection connect() throws SQLException {
        return connect("locks");
    }

    private Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/" + database
                + "?connectTimeout=2000", "root", "");
    }

    /** The single number a query of the test's own returns. */
    public long queryLong(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }

    /** Runs a statement of the test's own (KILL of a connection, say). */
    public void execute(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    public long pid() {
        if (process == null) {
            throw new IllegalStateException("MariaDB on port " + port + " is not running");
        }
        return process.pid();
    }

    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Pauses the server ({@code kill -STOP}): sockets stay open, nothing answers, until {@link #resume()}. */
    public void pause() {
        run(List.of("kill", "-STOP", Long.toString(pid())));
    }

    public void resume() {
        run(List.of("kill", "-CONT", Long.toString(pid())));
    }

    /** An outage: the server is killed ({@code SIGKILL}, as a crash); InnoDB recovers at the restart. */
    public synchronized void stop() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        RUNNING.remove(this);
    }

    /** Starts the stopped server again, on the same port, with its data. */
    public synchronized void restart() {
        if (!isRunning()) {
            launch();
        }
    }

    private void kill() {
        if (process != null) {
            process.destroyForcibly();
        }
    }

    @Override
    public synchronized void close() {
        stop();
        delete(dir);
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException ignored) {
            // a temporary directory: left to the system
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + new String(output));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
