package dev.locks.spring;

import dev.locks.AcquireOptions;
import dev.locks.ComputeOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.Ordered;
import org.springframework.util.unit.DataSize;

/**
 * The {@code locks.*} properties. Checked when bound: an invalid value stops the application with a
 * message that names the property.
 */
@ConfigurationProperties("locks")
public class LocksProperties implements InitializingBean {

    /**
     * The default of {@code locks.aspect-order}: just outside Spring's transaction advisor, which runs at
     * {@link Ordered#LOWEST_PRECEDENCE}, so that a lock is taken before a transaction begins and released
     * after it commits or rolls back. The gap of 100 leaves room for advice that belongs between the two
     * (a retry of the transaction under the same lock, say).
     */
    public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    /** Whether to enable the locks starter: the backend beans, the interceptors and the sweeper. */
    private boolean enabled = true;

    /**
     * The backend: 'local' (in-memory, one JVM), 'redis' or 'jdbc'. Unset: 'redis' when locks-redis is on the
     * classpath and a RedisConnectionFactory bean exists, 'jdbc' when locks-jdbc is and a DataSource bean exists,
     * else 'local'; with both locks-redis and locks-jdbc on the classpath it must be set.
     */
    private LocksBackend backend;

    /**
     * Storage namespace of every key; keys shown by the API never carry it. Unset: "locks:" for Redis, "" for JDBC
     * (whose namespace is locks.jdbc.table-prefix); the local backend shares no storage and has none.
     */
    private String keyPrefix;

    /**
     * How many times to try again after the first attempt fails, or 'infinity'. By default a caller waits (until
     * locks.wait-time), as synchronized and Redisson's lock() do; AcquireOptions.defaults() keeps 3 for plain Java.
     */
    private String retries = "infinity";

    /** Pause between attempts, jittered: each pause is uniform in (interval, 2 x interval]. */
    private Duration retryInterval = Duration.ofMillis(10);

    /** How long a lock may be held before it counts as stale, or 'infinity' (only a dead owner frees it). */
    private String lockTimeout = "30s";

    /** Overall deadline of one acquire, whatever the retries, or 'infinity' (only the retries end the wait). */
    private String waitTime = "10s";

    /**
     * How long keys stay locked at least, counted from when they were taken: a lease closed earlier keeps them
     * locked for everyone until then (ShedLock's lockAtLeastFor). At most lock-timeout.
     */
    private Duration holdAtLeast = Duration.ZERO;

    /**
     * What a @Locked call does when its keys cannot be taken within its wait: 'throw' a LockTimeoutException, or
     * 'skip' the method (it returns null, an empty Optional, Mono or Flux); an outage always throws.
     */
    private OnTimeout onTimeout = OnTimeout.THROW;

    /**
     * Order of the @Locked and @FetchOrCompute interceptors (@FetchOrCompute runs just outside @Locked).
     * Default: just outside @Transactional (Ordered.LOWEST_PRECEDENCE - 100).
     */
    private int aspectOrder = DEFAULT_ASPECT_ORDER;

    /**
     * How many distinct keys one acquire may take; a request for more fails before anything is locked, so that
     * one bad request cannot stall a shared server.
     */
    private int maxKeys = 1000;

    /** How many characters a key may have; a longer key fails, naming its position, before anything is locked. */
    private int maxKeyLength = 1024;

    private final Watchdog watchdog = new Watchdog();

    private final Cleanup cleanup = new Cleanup();

    private final Compute compute = new Compute();

    private final Cache cache = new Cache();

    private final Endpoint endpoint = new Endpoint();

    private final Redis redis = new Redis();

    private final Jdbc jdbc = new Jdbc();

    /**
     * The options of {@code LockRegistry.acquire} without options of its own, from {@code locks.retries},
     * {@code retry-interval}, {@code lock-timeout} and {@code wait-time}.
     */
    public AcquireOptions toAcquireOptions() {
        AcquireOptions options = AcquireOptionValues.withRetries(AcquireOptions.defaults(), retries)
                .withRetryInterval(retryInterval);
        options = AcquireOptionValues.withLockTimeout(options, lockTimeout).withHoldAtLeast(holdAtLeast);
        return AcquireOptionValues.withWaitTime(options, waitTime);
    }

    /** The options of {@code ComputeCache.fetchOrCompute}, from {@code locks.compute.*}. */
    public ComputeOptions toComputeOptions() {
        ComputeOptions options = ComputeOptions.defaults().withTtl(compute.defaultTtl).withComputeTimeout(compute.timeout);
        if (compute.refreshAfter != null) {
            options = options.withRefreshAfter(compute.refreshAfter);
        }
        return compute.staleIfError == null ? options : options.withStaleIfError(compute.staleIfError);
    }

    @Override
    public void afterPropertiesSet() {
        check("locks.retries", retries, () -> AcquireOptionValues.withRetries(AcquireOptions.defaults(), retries));
        requireNonNegative("locks.retry-interval", retryInterval);
        check("locks.lock-timeout", lockTimeout,
                () -> AcquireOptionValues.withLockTimeout(AcquireOptions.defaults(), lockTimeout));
        if (!AcquireOptionValues.isInfinity(waitTime)) {
            check("locks.wait-time", waitTime, () -> requireNonNegative("locks.wait-time",
                    AcquireOptionValues.duration("wait-time", String.valueOf(waitTime))));
        }
        requireNonNegative("locks.hold-at-least", holdAtLeast);
        check("locks.hold-at-least", holdAtLeast, () -> AcquireOptionValues
                .withLockTimeout(AcquireOptions.defaults(), lockTimeout).withHoldAtLeast(holdAtLeast),
                "Must not be longer than locks.lock-timeout (" + lockTimeout + ")");
        if (onTimeout == null) {
            throw new InvalidConfigurationPropertyValueException("locks.on-timeout", null, "Must be 'throw' or 'skip'.");
        }
        requirePositive("locks.cleanup.interval", cleanup.interval);
        if (cleanup.batchSize <= 0) {
            throw new InvalidConfigurationPropertyValueException("locks.cleanup.batch-size", cleanup.batchSize,
                    "Must be at least 1: the number of locks the sweeper examines per batch.");
        }
        requireAtLeastOne("locks.max-keys", maxKeys, "the number of distinct keys one acquire may take");
        requireAtLeastOne("locks.max-key-length", maxKeyLength, "the number of characters a key may have");
        if (redis.lease == null || redis.lease.toMillis() < 3) {
            throw new InvalidConfigurationPropertyValueException("locks.redis.lease", redis.lease,
                    "Must be a duration of at least 3ms: it is renewed every third of it.");
        }
        requirePositive("locks.redis.timeout", redis.timeout);
        requirePositive("locks.compute.timeout", compute.timeout);
        requireNonNegative("locks.compute.default-ttl", compute.defaultTtl);
        if (endpoint.maxListed <= 0) {
            throw new InvalidConfigurationPropertyValueException("locks.endpoint.max-listed", endpoint.maxListed,
                    "Must be at least 1: the number of locks one answer of the locks endpoint lists.");
        }
        jdbc.check();
        if (compute.maxEntries <= 0) {
            throw new InvalidConfigurationPropertyValueException("locks.compute.max-entries", compute.maxEntries,
                    "Must be at least 1: the number of values the local store keeps.");
        }
        if (compute.refreshAfter != null) {
            requirePositive("locks.compute.refresh-after", compute.refreshAfter);
            check("locks.compute.refresh-after", compute.refreshAfter.toString(),
                    () -> ComputeOptions.defaults().withTtl(compute.defaultTtl).withRefreshAfter(compute.refreshAfter));
        }
        if (compute.staleIfError != null) {
            requirePositive("locks.compute.stale-if-error", compute.staleIfError);
        }
        requirePositive("locks.compute.error-backoff", compute.errorBackoff);
        requireAtLeastOne("locks.compute.refresh.max-concurrent", compute.refresh.maxConcurrent,
                "the number of background refreshes a node runs at once");
        if (compute.maxBytes != null && compute.maxBytes.toBytes() <= 0) {
            throw new InvalidConfigurationPropertyValueException("locks.compute.max-bytes", compute.maxBytes,
                    "Must be at least 1B: the bytes the local store keeps; leave it unset to bound it by count only.");
        }
    }

    private static void check(String property, Object value, Runnable parse) {
        check(property, value, parse, null);
    }

    /** @param reason what to say before the parser's own message, or {@code null} */
    private static void check(String property, Object value, Runnable parse, String reason) {
        try {
            parse.run();
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(property, value,
                    reason == null ? ex.getMessage() : reason + ": " + ex.getMessage());
        }
    }

    private static void requireAtLeastOne(String property, int value, String meaning) {
        if (value <= 0) {
            throw new InvalidConfigurationPropertyValueException(property, value, "Must be at least 1: " + meaning + ".");
        }
    }

    private static void requireNonNegative(String property, Duration value) {
        if (value == null || value.isNegative()) {
            throw new InvalidConfigurationPropertyValueException(property, value, "Must be a duration >= 0.");
        }
    }

    private static void requirePositive(String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new InvalidConfigurationPropertyValueException(property, value, "Must be a duration > 0.");
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public LocksBackend getBackend() {
        return backend;
    }

    public void setBackend(LocksBackend backend) {
        this.backend = backend;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public String getRetries() {
        return retries;
    }

    public void setRetries(String retries) {
        this.retries = retries;
    }

    public Duration getRetryInterval() {
        return retryInterval;
    }

    public void setRetryInterval(Duration retryInterval) {
        this.retryInterval = retryInterval;
    }

    public String getLockTimeout() {
        return lockTimeout;
    }

    public void setLockTimeout(String lockTimeout) {
        this.lockTimeout = lockTimeout;
    }

    public String getWaitTime() {
        return waitTime;
    }

    public void setWaitTime(String waitTime) {
        this.waitTime = waitTime;
    }

    public Duration getHoldAtLeast() {
        return holdAtLeast;
    }

    public void setHoldAtLeast(Duration holdAtLeast) {
        this.holdAtLeast = holdAtLeast;
    }

    public OnTimeout getOnTimeout() {
        return onTimeout;
    }

    public void setOnTimeout(OnTimeout onTimeout) {
        this.onTimeout = onTimeout;
    }

    public int getAspectOrder() {
        return aspectOrder;
    }

    public void setAspectOrder(int aspectOrder) {
        this.aspectOrder = aspectOrder;
    }

    public int getMaxKeys() {
        return maxKeys;
    }

    public void setMaxKeys(int maxKeys) {
        this.maxKeys = maxKeys;
    }

    public int getMaxKeyLength() {
        return maxKeyLength;
    }

    public void setMaxKeyLength(int maxKeyLength) {
        this.maxKeyLength = maxKeyLength;
    }

    public Watchdog getWatchdog() {
        return watchdog;
    }

    public Cleanup getCleanup() {
        return cleanup;
    }

    public Compute getCompute() {
        return compute;
    }

    public Cache getCache() {
        return cache;
    }

    public Endpoint getEndpoint() {
        return endpoint;
    }

    public Redis getRedis() {
        return redis;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    /** {@code locks.watchdog.*}. */
    public static class Watchdog {

        /** Whether to renew the leases of live owners every third of their lock timeout. */
        private boolean enabled;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** {@code locks.cleanup.*}: the scheduled sweeper of stale locks. */
    public static class Cleanup {

        /** Whether to schedule the sweeper that removes stale locks (acquirers remove those they meet anyway). */
        private boolean enabled = true;

        /** Period of the sweeper. */
        private Duration interval = Duration.ofMinutes(5);

        /** How many locks the sweeper examines per batch. */
        private int batchSize = 100;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /** {@code locks.compute.*}: fetch-or-compute. */
    public static class Compute {

        /** After how long a computer that has not finished is replaced by the oldest waiter. */
        private Duration timeout = Duration.ofSeconds(30);

        /** How long a computed value is stored when @FetchOrCompute gives no ttl; 0 for no expiry. */
        private Duration defaultTtl = Duration.ofMinutes(5);

        /** The most values the local value store keeps. */
        private long maxEntries = 10_000;

        /**
         * The most bytes the local value store keeps, its values weighed by their Java serialized size (so they must
         * be Serializable, as on Redis and JDBC); unset to bound it by max-entries only. Set, it replaces
         * max-entries.
         */
        private DataSize maxBytes;

        /**
         * Refresh-ahead for @FetchOrCompute methods that give no refreshAfter: a hit on a value stored longer ago
         * than this returns it at once and starts one background recomputation; shorter than default-ttl unless
         * that is 0. Unset: no refresh-ahead.
         */
        private Duration refreshAfter;

        /**
         * Stale-if-error for @FetchOrCompute methods that give no staleIfError: how long after its TTL a value
         * stays readable as stale, served instead of a failed computation's exception. Unset: none.
         */
        private Duration staleIfError;

        /**
         * While a stale value is served after a failure, or after a refresh failed, at most one new attempt per key
         * per this (across all nodes of a distributed backend).
         */
        private Duration errorBackoff = Duration.ofSeconds(1);

        private final Refresh refresh = new Refresh();

        public Duration getRefreshAfter() {
            return refreshAfter;
        }

        public void setRefreshAfter(Duration refreshAfter) {
            this.refreshAfter = refreshAfter;
        }

        public Duration getStaleIfError() {
            return staleIfError;
        }

        public void setStaleIfError(Duration staleIfError) {
            this.staleIfError = staleIfError;
        }

        public Duration getErrorBackoff() {
            return errorBackoff;
        }

        public void setErrorBackoff(Duration errorBackoff) {
            this.errorBackoff = errorBackoff;
        }

        public Refresh getRefresh() {
            return refresh;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Duration getDefaultTtl() {
            return defaultTtl;
        }

        public void setDefaultTtl(Duration defaultTtl) {
            this.defaultTtl = defaultTtl;
        }

        public long getMaxEntries() {
            return maxEntries;
        }

        public void setMaxEntries(long maxEntries) {
            this.maxEntries = maxEntries;
        }

        public DataSize getMaxBytes() {
            return maxBytes;
        }

        public void setMaxBytes(DataSize maxBytes) {
            this.maxBytes = maxBytes;
        }
    }

    /** {@code locks.cache.*}: Spring's cache abstraction ({@code @Cacheable}). */
    public static class Cache {

        /**
         * Whether the misses of @Cacheable(sync = true), Cache.get(key, loader) and Cache.retrieve(key, loader) of
         * the application's CacheManager beans are loaded once across all nodes of the backend, the other callers
         * waiting for that value; off, Spring's caches are left as they are.
         */
        private boolean singleFlight;

        /** The caches whose misses are loaded once across all nodes; empty for all of them. */
        private Set<String> cacheNames = new LinkedHashSet<>();

        public boolean isSingleFlight() {
            return singleFlight;
        }

        public void setSingleFlight(boolean singleFlight) {
            this.singleFlight = singleFlight;
        }

        public Set<String> getCacheNames() {
            return cacheNames;
        }

        public void setCacheNames(Set<String> cacheNames) {
            this.cacheNames = cacheNames;
        }
    }

    /** {@code locks.compute.refresh.*}: the background refreshes of refresh-ahead. */
    public static class Refresh {

        /** Background refreshes running at once per node; beyond it a refresh is skipped (and counted), not queued. */
        private int maxConcurrent = 4;

        public int getMaxConcurrent() {
            return maxConcurrent;
        }

        public void setMaxConcurrent(int maxConcurrent) {
            this.maxConcurrent = maxConcurrent;
        }
    }

    /** {@code locks.endpoint.*}: the actuator endpoint {@code locks}. */
    public static class Endpoint {

        /**
         * When the endpoint shows lock keys (often customer ids); a hidden key shows as '******', and a caller
         * who may not see keys cannot look a lock up by key.
         */
        private ShowKeys showKeys = ShowKeys.WHEN_AUTHORIZED;

        /** At most this many locks, and as many computations, per listing of the endpoint ('?limit=N' for fewer). */
        private int maxListed = 1000;

        /**
         * Roles that see keys when show-keys is 'when-authorized'. Empty: any authenticated caller does (as
         * Spring Boot's own endpoints' roles).
         */
        private Set<String> roles = new LinkedHashSet<>();

        public ShowKeys getShowKeys() {
            return showKeys;
        }

        public void setShowKeys(ShowKeys showKeys) {
            this.showKeys = showKeys;
        }

        public Set<String> getRoles() {
            return roles;
        }

        public int getMaxListed() {
            return maxListed;
        }

        public void setMaxListed(int maxListed) {
            this.maxListed = maxListed;
        }

        public void setRoles(Set<String> roles) {
            this.roles = roles;
        }
    }

    /** What a {@code @Locked} call does when its keys cannot be taken within its wait ({@code locks.on-timeout}). */
    public enum OnTimeout {
        /** Throw the {@code LockTimeoutException}; the method does not run. */
        THROW,
        /**
         * Return without running the method: {@code null}, an empty {@code Optional}, {@code Mono} or {@code Flux},
         * a {@code CompletableFuture} of {@code null}; counted as {@code locks.acquire{result=skipped}}.
         */
        SKIP
    }

    /** When the actuator endpoint shows lock keys. */
    public enum ShowKeys {
        /** Never: every key shows as {@code ******}. */
        NEVER,
        /** To authorized users only (as Spring Boot's {@code show-values=when-authorized}). */
        WHEN_AUTHORIZED,
        /** Always. */
        ALWAYS
    }

    /** {@code locks.redis.*}: the Redis backend. */
    public static class Redis {

        /** Whether to wake Redis waiters by a publish on release (else they poll at the retry interval). */
        private boolean notify = true;

        /**
         * The lease under which a node holds a lock of infinite lock timeout in Redis, renewed every third of it
         * whether or not the watchdog is on: a crashed node's "infinite" locks free themselves after it.
         */
        private Duration lease = Duration.ofSeconds(30);

        /**
         * The longest any one Redis round trip of the library may take, whatever the Redis client's own command
         * timeout (Lettuce's default is 60s): an acquire never outlives its wait time by more than this, and the
         * health check answers DOWN within it when Redis does not answer.
         */
        private Duration timeout = Duration.ofSeconds(2);

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

        /** How the default {@code locksRedisSerializer} reads computed values back. */
        private final Serialization serialization = new Serialization();

        public boolean isNotify() {
            return notify;
        }

        public void setNotify(boolean notify) {
            this.notify = notify;
        }

        public Serialization getSerialization() {
            return serialization;
        }
    }

    /** The default serializer of computed values on Redis or JDBC: JDK serialization with an allow-list. */
    public static class Serialization {

        /**
         * The classes computed values may hold, as ObjectInputFilter patterns ('com.example.Quote', 'com.example.*'
         * for a package, 'com.example.**' with its subpackages); every other class is refused when a value is read
         * (a miss) and when it is written (an error). 'java.lang.*', 'java.util.**', 'java.time.**', 'java.math.*'
         * are always allowed; besides them, the application's auto-configuration packages when empty, else the
         * classes listed (which replace the application's packages, not the JDK's types).
         */
        private List<String> allowedClasses = new ArrayList<>();

        public List<String> getAllowedClasses() {
            return allowedClasses;
        }

        public void setAllowedClasses(List<String> allowedClasses) {
            this.allowedClasses = allowedClasses;
        }
    }

    /** {@code locks.jdbc.*}: the JDBC backend. */
    public static class Jdbc {

        /** The start of the name of every table, sequence, function and channel of the schema. */
        private String tablePrefix = "locks_";

        /** When to create the schema at startup: 'embedded' (only for an embedded database, so never for PostgreSQL), 'always' or 'never'. */
        private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;

        /** The renewed lease of a lock with an infinite lock timeout: a crashed node's such locks free themselves after it. */
        private Duration lease = Duration.ofSeconds(30);

        /** Whether to wake JDBC waiters by LISTEN/NOTIFY on release (else they poll at the retry interval). */
        private boolean notify = true;

        /** How many connections the lock registry, and the compute cache as many, take from the DataSource and keep (besides the one listening connection they share). */
        private int connections = 2;

        /** The longest round trip, or wait for one of the registry's or cache's connections, before LockUnavailableException. */
        private Duration timeout = Duration.ofSeconds(5);

        /** The database: 'postgresql', 'mariadb', 'mysql' or 'h2'. Unset: detected from the DataSource's connection metadata. */
        private String dialect;

        /** Where the database has no notifications (all but PostgreSQL): how often each node polls, in one query, for keys released on other nodes. */
        private Duration pollInterval = Duration.ofMillis(100);

        /** How the default {@code locksJdbcSerializer} reads computed values back. */
        private final Serialization serialization = new Serialization();

        void check() {
            if (tablePrefix == null || !tablePrefix.matches("[a-z_][a-z0-9_]{0,39}")) {
                throw new InvalidConfigurationPropertyValueException("locks.jdbc.table-prefix", tablePrefix,
                        "Must be lower-case letters, digits and '_', starting with a letter or '_', at most 40"
                                + " characters.");
            }
            if (lease == null || lease.toMillis() < 1) {
                throw new InvalidConfigurationPropertyValueException("locks.jdbc.lease", lease,
                        "Must be a duration of at least 1ms.");
            }
            if (connections < 1) {
                throw new InvalidConfigurationPropertyValueException("locks.jdbc.connections", connections,
                        "Must be at least 1: the connections the registry keeps for its statements.");
            }
            if (timeout == null || timeout.toMillis() < 1) {
                throw new InvalidConfigurationPropertyValueException("locks.jdbc.timeout", timeout,
                        "Must be a duration of at least 1ms.");
            }
            if (dialect != null && !dialect.isBlank()
                    && !List.of("postgresql", "mariadb", "mysql", "h2").contains(dialect.trim().toLowerCase(Locale.ROOT))) {
                throw new InvalidConfigurationPropertyValueException("locks.jdbc.dialect", dialect,
                        "Must be 'postgresql', 'mariadb', 'mysql' or 'h2', or unset to detect it from the DataSource.");
            }
            if (pollInterval == null || pollInterval.toMillis() < 1) {
                throw new InvalidConfigurationPropertyValueException("locks.jdbc.poll-interval", pollInterval,
                        "Must be a duration of at least 1ms.");
            }
        }

        public String getTablePrefix() {
            return tablePrefix;
        }

        public void setTablePrefix(String tablePrefix) {
            this.tablePrefix = tablePrefix;
        }

        public InitializeSchema getInitializeSchema() {
            return initializeSchema;
        }

        public void setInitializeSchema(InitializeSchema initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

        public boolean isNotify() {
            return notify;
        }

        public void setNotify(boolean notify) {
            this.notify = notify;
        }

        public int getConnections() {
            return connections;
        }

        public void setConnections(int connections) {
            this.connections = connections;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public String getDialect() {
            return dialect;
        }

        public void setDialect(String dialect) {
            this.dialect = dialect;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public Serialization getSerialization() {
            return serialization;
        }
    }

    /** When the JDBC backend creates its schema at startup (as Spring Boot's {@code spring.sql.init.mode}). */
    public enum InitializeSchema {
        /** Only when the database is embedded (H2, HSQLDB, Derby): never for PostgreSQL. */
        EMBEDDED,
        /** At every start (the script is idempotent). */
        ALWAYS,
        /** Never: the schema is the application's (Flyway, Liquibase, or the shipped script run by hand). */
        NEVER
    }
}
