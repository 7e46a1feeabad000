package dev.locks.benchmarks.report;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** What the report shows: each comparison's table, its rows in order (this project first) and their labels. */
final class Catalog {

    private Catalog() {
    }

    /** One row: an implementation's measurement name and how the table names it. */
    record Row(String name, String label) {
    }

    /** An extra column, read from a measurement. */
    record Column(String header, Function<Measurement, String> value) {
    }

    /**
     * One table.
     *
     * @param title its heading
     * @param note how it was measured, in a sentence or two
     * @param group the measurements' group
     * @param higherIsBetter true for throughput
     * @param baseline a row whose median is subtracted to show each row's overhead; null for none
     * @param rows this project first
     * @param columns extra columns
     */
    record Table(String title, String note, String group, boolean higherIsBetter, String baseline, List<Row> rows,
            List<Column> columns) {
    }

    private static final String JMH = " Spread: lowest to highest measured iteration.";
    private static final Row FLOOR_MAP =
            new Row("floorConcurrentHashMap", "floor: `ConcurrentHashMap` `putIfAbsent` + `remove`");
    private static final Row FLOOR_SORTED =
            new Row("floorConcurrentHashMap", "floor: sort, `putIfAbsent` each, roll back on failure");
    private static final Row DEFAULT_REGISTRY =
            new Row("springDefaultLockRegistry", "Spring Integration `DefaultLockRegistry` (256 locks)");
    private static final Row STRIPED = new Row("guavaStriped", "Guava `Striped.lock(256)`");
    private static final Row LOCAL = new Row("thisProject", "**this project**: `LocalLockRegistry.acquire` + `close`");

    static final List<Table> TABLES = List.of(singleKey(), multiKey(2), multiKey(8), spreadKeys(), annotations(),
            computeHit(), redis(1), redis(5), redisAnnotations(), redisLatency(1), redisLatency(5), redisComputeHit(),
            redisCluster(1), redisCluster(5), jdbc(1), jdbc(5),
            handOff(), jdbcHandOff(),
            stampede(), freshValues(), memory());

    private static Table singleKey() {
        return new Table("Local, one key: acquire + release",
                "ns per cycle, lower is better. Each thread has a key of its own: nobody waits." + JMH,
                "LocalSingleKey", false, null,
                List.of(LOCAL, FLOOR_MAP, new Row("reentrantLock", "`ReentrantLock` (one lock, no key)"),
                        new Row("lock4jLocal", "lock4j's `LocalLockExecutor` (its algorithm, restated: unreleased)"),
                        new Row("mapOfReentrantLocks", "`ConcurrentHashMap<String, ReentrantLock>` + removal, by hand"),
                        DEFAULT_REGISTRY, STRIPED), List.of());
    }

    private static Table spreadKeys() {
        return new Table("Local, random distinct keys, 2 threads",
                "ns per cycle, lower is better. Each thread cycles through 4,096 keys of its own: the keys never "
                        + "conflict, but 256-lock registries alias them." + JMH,
                "LocalSpreadKeys", false, null, List.of(LOCAL, FLOOR_MAP, DEFAULT_REGISTRY, STRIPED), List.of());
    }

    private static Table annotations() {
        return new Table("Annotations on a Spring bean, same SpEL key `'account:' + #id`",
                "ns per call, lower is better; overhead = minus the bare method. Cache calls are hits." + JMH,
                "SpringAnnotations", false, "bareMethod",
                List.of(new Row("locked", "**this project**: `@Locked`"),
                        new Row("lockedMono", "**this project**: `@Locked` on `Mono`, the caller's `block()`"),
                        new Row("fetchOrComputeHit", "**this project**: `@FetchOrCompute` hit"),
                        new Row("cacheableSyncHit", "Spring `@Cacheable(sync = true)` hit, Caffeine cache"),
                        new Row("bareMethod", "the bare method, no proxy")), List.of());
    }

    private static Table redisAnnotations() {
        return new Table("`@Locked` on Redis: blocking and on `Mono`",
                "µs per call, lower is better. The starter on `locks.backend=redis`, the same bean and SpEL key as "
                        + "above; each thread has a key of its own: nobody waits." + JMH,
                "RedisAnnotations", false, null,
                List.of(new Row("lockedMono", "**this project**: `@Locked` on `Mono`, the caller's `block()`"),
                        new Row("locked", "**this project**: `@Locked`, blocking")), List.of());
    }

    private static Table computeHit() {
        return new Table("Fetch-or-compute hit",
                "ns per call, lower is better. Caffeine bounded to 10,000 entries with a 5-minute expiry, as this "
                        + "project's value store is." + JMH,
                "LocalComputeHit", false, null,
                List.of(new Row("thisProject", "**this project**: `LocalComputeCache.fetchOrCompute`"),
                        new Row("caffeineGetIfPresent", "Caffeine `getIfPresent`"),
                        new Row("caffeineGet", "Caffeine `get(key, fn)`")), List.of());
    }

    private static Table handOff() {
        return new Table("Contended hand-off: two threads alternating on one key",
                "µs from the holder's release to the waiter's acquire, lower is better. Median of all passes; "
                        + "spread: lowest to highest trial median.",
                "handoff", false, null,
                List.of(new Row("thisProject", "**this project**: waiter parked, woken by the release"),
                        new Row("reentrantLock", "`ReentrantLock`"),
                        new Row("seedDesign", "the seed's design: sleep 10 ms + jitter between attempts")),
                List.of(new Column("p90 µs", m -> m.extra().get("p90")),
                        new Column("passes", m -> m.extra().get("passes"))));
    }

    private static Table jdbcHandOff() {
        return new Table("PostgreSQL hand-off: two nodes alternating on one key",
                "µs from one node's release to the other node's acquire, lower is better. Two registries (two "
                        + "nodes) on one local PostgreSQL; a polling waiter is released at a random moment of its "
                        + "interval. Median of all passes; spread: lowest to highest trial median.",
                "JdbcHandOff", false, null,
                List.of(new Row("thisProject", "**this project**: waiter woken by the release's `NOTIFY`"),
                        new Row("thisProjectPolling", "this project, `notify(false)`: retry every 10 ms, jittered"),
                        new Row("springIntegration", "Spring Integration `JdbcLockRegistry`: polls every 100 ms"),
                        new Row("shedLock", "ShedLock `JdbcTemplateLockProvider`: never waits, the caller retries "
                                + "every 100 ms")),
                List.of(new Column("p90 µs", m -> m.extra().get("p90")),
                        new Column("passes", m -> m.extra().get("passes"))));
    }

    private static Table stampede() {
        return new Table("Stampede: 1,000 threads miss one key, 50 ms computation",
                "ms from the start gate until every thread has the value, lower is better. Median of the trials; "
                        + "spread: fastest to slowest trial. The worst caller's own wait runs from its call to its "
                        + "value (the gate left out). The fan-out runs from the end of the computation to the last "
                        + "caller served; it also holds callers that reached the key only after the computation ended "
                        + "(on a loaded machine the gate is slow), which the voluntary context switches show: 2 per "
                        + "caller when every caller waited (the gate and the value), fewer when some came late.",
                "stampede", false, null,
                List.of(new Row("thisProject", "**this project**: `fetchOrCompute`"),
                        new Row("thisProjectAnnotation", "**this project**: `@FetchOrCompute`"),
                        new Row("floorFutureInMap", "floor: a `CompletableFuture` in a `ConcurrentHashMap`"),
                        new Row("floorComputeIfAbsent", "floor: `ConcurrentHashMap.computeIfAbsent`"),
                        new Row("caffeineGet", "Caffeine `get(key, fn)`"),
                        new Row("cacheableSync", "Spring `@Cacheable(sync = true)` on Caffeine"),
                        new Row("harnessOnly", "the harness alone: gate opens, every thread returns (no cache)")),
                List.of(new Column("worst caller's own wait, ms: median (slowest trial)",
                                m -> m.extra().get("worstWaitMs") + " (" + m.extra().get("worstWaitMaxMs") + ")"),
                        new Column("fan-out, ms: computation's end to last caller served, median (slowest)",
                                m -> m.extra().getOrDefault("fanOutMs", "—") + " ("
                                        + m.extra().getOrDefault("fanOutMaxMs", "—") + ")"),
                        new Column("context switches per caller: voluntary / involuntary",
                                m -> m.extra().getOrDefault("voluntarySwitchesPerCaller", "—") + " / "
                                        + m.extra().getOrDefault("involuntarySwitchesPerCaller", "—")),
                        new Column("computations per trial", Catalog::computations),
                        new Column("trials", m -> m.extra().get("trials"))));
    }

    private static Table freshValues() {
        return new Table("Fresh values: a hot key going stale every 200 ms, 50 ms computation, 8 threads",
                "Longest read of a trial in ms, lower is better: median of the trials; spread: shortest to longest "
                        + "trial's. Every read timed, each reader pausing 50 µs between reads; percentiles over all "
                        + "trials' reads. A read waited when it took 25 ms or more (half a computation).",
                "freshValues", false, null,
                List.of(new Row("thisProjectRefreshAfter",
                                "**this project**: `fetchOrCompute`, ttl 400 ms, `refreshAfter` 200 ms"),
                        new Row("thisProjectTtl", "this project: `fetchOrCompute`, ttl 200 ms"),
                        new Row("caffeineRefreshAfterWrite",
                                "Caffeine `LoadingCache`, `refreshAfterWrite` 200 ms, `expireAfterWrite` 400 ms"),
                        new Row("cacheableSync",
                                "Spring `@Cacheable(sync = true)` on Caffeine, `expireAfterWrite` 200 ms"),
                        new Row("redisRefreshAfter",
                                "**this project** on Redis: `fetchOrCompute`, ttl 400 ms, `refreshAfter` 200 ms"),
                        new Row("redisTtl", "this project on Redis: `fetchOrCompute`, ttl 200 ms"),
                        new Row("hitOnly", "baseline: `fetchOrCompute`, ttl 5 min (every read a hit)"),
                        new Row("redisHitOnly", "baseline on Redis: `fetchOrCompute`, ttl 5 min (every read a hit)")),
                List.of(new Column("p50 µs", m -> m.extra().get("p50Us")),
                        new Column("p99 µs", m -> m.extra().get("p99Us")),
                        new Column("p99.9 µs", m -> m.extra().get("p999Us")),
                        new Column("reads that waited / reads", m -> m.extra().get("waitedReads") + " / "
                                + m.extra().get("reads")),
                        new Column("computations per s", m -> m.extra().get("computationsPerSecond"))));
    }

    private static Table memory() {
        return new Table("Memory: bytes per held lock",
                "Growth of the heap in use after full GCs, per held lock, lower is better; one measurement. JOL's "
                        + "walk of the object graph (fewer locks) says where it goes.",
                "memory", false, null,
                List.of(new Row("thisProject", "**this project**: `LocalLockRegistry`, lease kept"),
                        new Row("floorConcurrentHashMap", "floor: a `ConcurrentHashMap<String, Thread>` entry"),
                        new Row("mapOfReentrantLocks", "a `ConcurrentHashMap` of `ReentrantLock`s, by hand"),
                        new Row("lock4jLocal", "lock4j's `LocalLockExecutor` (its algorithm, restated: unreleased)"),
                        new Row("springDefaultLockRegistry",
                                "Spring Integration `DefaultLockRegistry`: every key on 256 locks")),
                List.of(new Column("locks held", m -> m.extra().get("locks")),
                        new Column("JOL B/lock", m -> m.extra().get("jolBytesPerLock")),
                        new Column("objects/lock", m -> m.extra().get("jolObjectsPerLock")),
                        new Column("by class (B/lock / objects/lock)",
                                m -> m.extra().get("byClass").replace("|", ", ").replace("$", "\\$"))));
    }

    private static String computations(Measurement m) {
        String min = m.extra().get("computationsPerTrialMin");
        String max = m.extra().get("computationsPerTrialMax");
        return min.equals(max) ? min : min + "–" + max;
    }

    private static Table multiKey(int keys) {
        return new Table(String.format(Locale.ROOT, "Local, %d keys all-or-nothing: acquire + release", keys),
                "ns per cycle, lower is better. The same shuffled keys for everyone; each brings them into one order."
                        + JMH,
                "LocalMultiKey:keyCount=" + keys, false, null,
                List.of(LOCAL, FLOOR_SORTED, new Row("guavaStriped", "Guava `Striped.bulkGet` + lock each"),
                        new Row("springDefaultLockRegistry",
                                "Spring Integration `DefaultLockRegistry`, one by one in stripe order")),
                List.of());
    }

    private static Table redisComputeHit() {
        return new Table("Redis cache hit",
                "hits per second, all threads together, higher is better. Local `redis-server`, one stored key read by "
                        + "every thread; each is one `GET` on the server (see the commands per operation)." + JMH,
                "RedisComputeHit", true, null,
                List.of(new Row("thisProject", "**this project**: `RedisComputeCache.fetchOrCompute`"),
                        new Row("floorGet", "floor: Lettuce `GET` of a string, no serializer"),
                        new Row("springRedisCache",
                                "Spring `RedisCache.get(key, loader)` (as `@Cacheable(sync = true)`), JDK serialization")),
                List.of());
    }

    private static Table redis(int keys) {
        boolean one = keys == 1;
        return new Table(String.format(Locale.ROOT, "Redis, %d key%s: acquire + release", keys, one ? "" : "s"),
                "cycles per second, all threads together, higher is better. Local `redis-server`, each thread its own "
                        + "keys." + (one ? "" : " Libraries without a multi-key call take the keys one by one, "
                        + "sorted.") + JMH,
                "RedisLocks:keyCount=" + keys, true, null,
                List.of(new Row("thisProject", "**this project**: `RedisLockRegistry`"),
                        new Row("thisProjectPolling",
                                "this project, `notify(false)`: no subscription, waiters poll"),
                        new Row("floorLettuce", one ? "floor: Lettuce `SET NX PX` + Lua compare-and-delete"
                                : "floor: Lettuce, one Lua script to set all, one to delete own"),
                        new Row("springIntegrationSpin", "Spring Integration `RedisLockRegistry`, spin"),
                        new Row("springIntegrationPubSub", "Spring Integration `RedisLockRegistry`, pub/sub"),
                        new Row("redisson", one ? "Redisson `RLock`" : "Redisson `RedissonMultiLock`"),
                        new Row("shedLock", "ShedLock `RedisLockProvider`")),
                List.of());
    }

    private static Table redisLatency(int keys) {
        boolean one = keys == 1;
        return new Table(String.format(Locale.ROOT, "Redis, %d key%s at 4 threads: latency of a cycle, p99", keys,
                one ? "" : "s"),
                "µs per acquire + release, 99th percentile of every call sampled (JMH sample mode), lower is better; "
                        + "the same benchmark as the throughput table above. Spread: lowest to highest iteration's "
                        + "p99.",
                "RedisLocks:keyCount=" + keys + JmhSuite.P99, false, null,
                List.of(new Row("thisProject", "**this project**: `RedisLockRegistry`"),
                        new Row("floorLettuce", one ? "floor: Lettuce `SET NX PX` + Lua compare-and-delete"
                                : "floor: Lettuce, one Lua script to set all, one to delete own"),
                        new Row("shedLock", "ShedLock `RedisLockProvider`")),
                List.of(new Column("p50 µs", m -> m.extra().get("p50")),
                        new Column("p99.9 µs", m -> m.extra().get("p999")),
                        new Column("samples", m -> m.extra().get("samples"))));
    }

    private static Table redisCluster(int keys) {
        boolean one = keys == 1;
        return new Table(String.format(Locale.ROOT, "Redis Cluster, %d key%s: acquire + release", keys, one ? "" : "s"),
                "cycles per second, all threads together, higher is better. A local cluster of 3 masters, each thread "
                        + "its own keys" + (one ? "." : ", each in a slot of its own (this project: one round trip per "
                        + "slot each way).") + JMH,
                "RedisClusterLocks:keyCount=" + keys, true, null,
                List.of(new Row("thisProject", "**this project**: `RedisLockRegistry`"),
                        new Row("redisson", one ? "Redisson `RLock`" : "Redisson `RedissonMultiLock`")),
                List.of());
    }

    private static Table jdbc(int keys) {
        boolean one = keys == 1;
        return new Table(String.format(Locale.ROOT, "PostgreSQL, %d key%s: acquire + release", keys, one ? "" : "s"),
                "cycles per second, all threads together, higher is better. A local PostgreSQL of the benchmark's "
                        + "own, a HikariCP pool with its defaults, each thread its own keys." + (one ? "" : " This "
                        + "project: one function call each way; the others take the keys one by one, sorted.") + JMH,
                "JdbcLocks:db=postgresql:keyCount=" + keys, true, null,
                List.of(new Row("thisProject", "**this project**: `JdbcLockRegistry` (2 connections of its own)"),
                        new Row("thisProjectFourConnections", "this project, `connections(4)`"),
                        new Row("springIntegration",
                                "Spring Integration `JdbcLockRegistry` on `DefaultLockRepository` (`INT_LOCK`)"),
                        new Row("shedLock", "ShedLock `JdbcTemplateLockProvider`, database time (`shedlock`)")),
                List.of());
    }
}
