package dev.locks.jdbc.test;

import dev.locks.test.FreePorts;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL server of a test's own: {@code initdb} into a temporary directory, {@code pg_ctl start} on a free
 * loopback port, trust authentication, without fsync (tests only: a stopped server keeps what it committed, the machine crashing would not). Never the machine's server.
 * Run as the {@code postgres} OS user when the tests run as root (PostgreSQL refuses to run as root). The
 * binaries are found on the {@code PATH}, else under {@code /usr/lib/postgresql/<version>/bin} (Debian), or
 * in {@code $PG_BIN}. Stopped with {@code pg_ctl stop} (or killed by the pid of its postmaster), restarted on
 * the same port; servers still running when the JVM exits are killed by a shutdown hook.
 */
public final class PostgresServer implements AutoCloseable {

    private static final Set<PostgresServer> RUNNING = ConcurrentHashMap.newKeySet();
    private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(PostgresServer::kill), "postgres-reaper"));
    }

    private final Path dir;
    private final Path bin;
    private int port;

    private PostgresServer(Path dir, Path bin) {
        this.dir = dir;
        this.bin = bin;
    }

    /**
     * Creates a cluster in a new temporary directory and starts it on a free loopback port. The cluster is a
     * copy of one {@code initdb} made once per JVM (initdb takes seconds; a copy, milliseconds).
     */
    public static PostgresServer start() {
        Path bin = binaries();
        PostgresServer server = new PostgresServer(ownedTempDirectory(), bin);
        server.run(List.of("cp", "-a", template(bin).resolve("data").toString(), server.data()));
        FreePorts.launch(port -> {
            server.port = port;
            server.launch();
        });
        return server;
    }

    /**
     * A streaming replica of {@code primary}: {@code pg_basebackup -R} (a standby that follows the primary
     * asynchronously), started on a free loopback port. {@link #promote()} makes it a primary (a failover).
     */
    public static PostgresServer replicaOf(PostgresServer primary) {
        Path bin = binaries();
        PostgresServer replica = new PostgresServer(ownedTempDirectory(), bin);
        replica.run(List.of(tool(bin, "pg_basebackup").toString(), "-h", "127.0.0.1", "-p",
                Integer.toString(primary.port), "-U", "postgres", "-D", replica.data(), "-R", "-X", "stream",
                "--no-sync"));
        FreePorts.launch(port -> {
            replica.port = port;
            replica.launch();
        });
        return replica;
    }

    /** A PostgreSQL program beside initdb (its real directory, when the PATH has only links to some). */
    private static Path tool(Path bin, String name) {
        try {
            Path beside = bin.resolve(name);
            return Files.isExecutable(beside) ? beside : bin.resolve("initdb").toRealPath().resolveSibling(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Promotes this replica to a primary ({@code pg_ctl promote}), and waits until it accepts writes. */
    public void promote() {
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data(), "-w", "-t", "30", "promote"));
    }

    private static Path template;

    /** The cluster every server copies, made by initdb on first use. */
    private static synchronized Path template(Path bin) {
        if (template == null) {
            PostgresServer maker = new PostgresServer(ownedTempDirectory(), bin);
            maker.run(List.of(bin.resolve("initdb").toString(), "-D", maker.data(), "-A", "trust", "-U", "postgres",
                    "-E", "UTF8", "--no-sync", "--no-instructions"));
            template = maker.dir;
            Runtime.getRuntime().addShutdownHook(new Thread(maker::delete, "postgres-template-cleanup"));
        }
        return template;
    }

    /** A new temporary directory, owned by postgres when we are root. */
    private static Path ownedTempDirectory() {
        try {
            Path dir = Files.createTempDirectory("postgres-test-");
            if (ROOT) {
                UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
                Files.setOwner(dir, postgres);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return port;
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** A new non-pooling data source (each connection a new one), with short connect and login timeouts. */
    public DataSource dataSource() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(jdbcUrl());
        dataSource.setUser("postgres");
        dataSource.setConnectTimeout(2);
        dataSource.setLoginTimeout(2);
        return dataSource;
    }

    /** A connection of the test's own. */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl() + "?connectTimeout=2", "postgres", "");
    }

    /** The single {@code bigint} a query of the test's own returns (a count, say). */
    public long queryLong(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }

    /** The single {@code timestamptz} a query of the test's own returns. */
    public Instant queryInstant(String sql) throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getObject(1, OffsetDateTime.class).toInstant();
        }
    }

    /** The pid of the postmaster, from {@code postmaster.pid}. */
    public long pid() {
        try {
            return Long.parseLong(Files.readAllLines(dir.resolve("data/postmaster.pid")).get(0).trim());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("PostgreSQL on port " + port + " is not running", e);
        }
    }

    /**
     * Pauses every process of the server ({@code kill -STOP} of the postmaster and its children): sockets stay open,
     * nothing answers, until {@link #resume()}.
     */
    public void pause() {
        signal("STOP");
    }

    /** Lets a {@linkplain #pause() paused} server run again. */
    public void resume() {
        signal("CONT");
    }

    private void signal(String signal) {
        ProcessHandle postmaster = ProcessHandle.of(pid()).orElseThrow();
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal, Long.toString(postmaster.pid())));
        postmaster.descendants().forEach(process -> command.add(Long.toString(process.pid())));
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("could not " + command + ": "
                        + new String(kill.getInputStream().readAllBytes()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending " + command, e);
        }
    }

    public boolean isRunning() {
        if (!Files.exists(dir.resolve("data/postmaster.pid"))) {
            return false;
        }
        try {
            return ProcessHandle.of(pid()).map(ProcessHandle::isAlive).orElse(false);
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** An outage: {@code pg_ctl stop -m immediate} (every backend ends at once, no checkpoint, as a crash). */
    public synchronized void stop() {
        if (isRunning()) {
            run(List.of(bin.resolve("pg_ctl").toString(), "-D", data(), "-m", "immediate", "-w", "stop"));
        }
        RUNNING.remove(this);
    }

    /** Starts the stopped server again, on the same port, with its data. */
    public synchronized void restart() {
        if (!isRunning()) {
            launch();
        }
    }

    private void launch() {
        String options = "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off"
                + " -c full_page_writes=off -c max_connections=100";
        try {
            run(List.of(bin.resolve("pg_ctl").toString(), "-D", data(), "-o", options, "-l",
                    dir.resolve("server.log").toString(), "-w", "-t", "30", "start"));
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + "\n" + log(), e);
        }
        RUNNING.add(this);
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("server.log"));
        } catch (IOException e) {
            return "(no server log)";
        }
    }

    private void kill() {
        try {
            ProcessHandle.of(pid()).ifPresent(ProcessHandle::destroyForcibly);
        } catch (IllegalStateException ignored) {
            // not running
        }
    }

    /** Stops the server and deletes its directory. */
    @Override
    public synchronized void close() {
        stop();
        delete();
    }

    private void delete() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException ignored) {
            // a temporary directory: left to the system
        }
    }

    private String data() {
        return dir.resolve("data").toString();
    }

    /** Runs a PostgreSQL command (as postgres when we are root) and waits for it. */
    private void run(List<String> command) {
        List<String> full = new ArrayList<>();
        if (ROOT) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        try {
            Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
            process.getOutputStream().close();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", full) + " failed: " + new String(output));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code $PG_BIN}, else the directory of {@code initdb} on the PATH, else the newest Debian install. */
    static Path binaries() {
        String configured = System.getenv("PG_BIN");
        if (configured != null && Files.isExecutable(Paths.get(configured, "initdb"))) {
            return Paths.get(configured);
        }
        for (String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!entry.isEmpty() && Files.isExecutable(Paths.get(entry, "initdb"))
                    && Files.isExecutable(Paths.get(entry, "pg_ctl"))) {
                return Paths.get(entry);
            }
        }
        Path debian = Paths.get("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                return versions.map(version -> version.resolve("bin"))
                        .filter(candidate -> Files.isExecutable(candidate.resolve("initdb")))
                        .max(Comparator.comparingInt(PostgresServer::version))
                        .orElseThrow(() -> missing());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw missing();
    }

    private static int version(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString().replaceAll("\\D.*", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static IllegalStateException missing() {
        return new IllegalStateException("PostgreSQL's initdb and pg_ctl were found neither on the PATH nor under"
                + " /usr/lib/postgresql/*/bin (set PG_BIN, or install the Debian package 'postgresql'; .ci/run does)");
    }
}
