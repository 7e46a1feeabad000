package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.Lease;
import dev.locks.redis.test.RedisMonitor;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.spi.RemoteLockStore.Owner;
import dev.locks.spi.RemoteLockStore.Ownership;
import dev.locks.spi.RemoteLockStore.Ticket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Round trips counted, not assumed: MONITOR shows what the client sent, INFO commandstats what the server
 * ran. One acquire and one release are one command each, whatever the number of keys.
 */
class RoundTripCountTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Owner OWNER = new Owner("node:1", "worker @ node");

    private RedisLockStore store;

    @BeforeEach
    void warmUp() {
        store = new RedisLockStore(redis.connectionFactory(), "locks:", true);
        store.subscribe(key -> { }, () -> { }); // its connection is made and subscribed before counting
        store.tryAcquire(List.of("warm-up"), OWNER, 10_000); // the scripts are loaded, the connection is up
        store.renew(List.of(new Ownership("warm-up", OWNER.id(), 10_000)));
        store.release(List.of(new Ownership("warm-up", OWNER.id(), 0)));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @ParameterizedTest(name = "{0} keys")
    @ValueSource(ints = {1, 5})
    void acquireAndReleaseShouldBeOneCommandEach(int keyCount) {
        List<String> keys = IntStream.range(0, keyCount).mapToObj(i -> "account:" + i).toList();
        List<Ownership> held = keys.stream().map(key -> new Ownership(key, OWNER.id(), 0)).toList();
        redis.server().command("CONFIG", "RESETSTAT");

        try (RedisMonitor monitor = new RedisMonitor(redis.server())) {
            assertThat(store.tryAcquire(keys, OWNER, 10_000).isTaken()).isTrue();
            assertThat(monitor.commandsSent()).as("acquire").containsExactly("evalsha");

            assertThat(store.release(held)).isEmpty();
            assertThat(monitor.commandsSent()).as("release").containsExactly("evalsha");

            assertThat(store.tryAcquire(List.of("account:0", "other"), OWNER, 10_000).isTaken()).isTrue();
            assertThat(store.tryAcquire(keys, OWNER, 10_000, new Ticket("waiter", 0, 60_000)).heldKey())
                    .isEqualTo("account:0");
            assertThat(monitor.commandsSent()).as("an acquire that finds a key held, and queues its ticket")
                    .containsExactly("evalsha", "evalsha");

            store.renew(keys.stream().map(key -> new Ownership(key, OWNER.id(), 10_000)).toList());
            assertThat(monitor.commandsSent()).as("renew").containsExactly("evalsha");

            // the acquire that found account:0 held queued its waiter's ticket: its release tells the nodes
            assertThat(store.release(List.of(new Ownership("account:0", OWNER.id(), 0),
                    new Ownership("other", OWNER.id(), 0)))).isEmpty();
            assertThat(monitor.commandsSent()).as("release of a waited-for key").containsExactly("evalsha");
        }

        Map<String, Long> calls = redis.server().commandCalls();
        assertThat(calls.get("evalsha")).isEqualTo(6L);
        assertThat(calls).doesNotContainKey("eval").doesNotContainKey("script|load");
        assertThat(calls.get("publish")).as("one by the release of the waited-for keys, none by the first release")
                .isEqualTo(1L);
        assertThat(calls.get("getset")).as("one fencing token per acquire: the counter set to the clock, its old"
                + " value read").isEqualTo(2L);
        assertThat(calls.get("incr")).as("the waiter's ticket order").isEqualTo(1L);
    }

    /**
     * What the server runs for one uncontended cycle (nobody waits, no ticket), counted by {@code INFO
     * commandstats}, which counts the commands inside scripts too: pinned, so that a script change that adds
     * server work per cycle shows here (issue 15; the raw floor, {@code SET NX PX} and a compare-and-delete
     * script, runs 4 commands for one key and 17 for five; this project's, before that issue, 14 and 50).
     */
    @ParameterizedTest(name = "{0} keys, with a ticket: {1}")
    @CsvSource({"1, false", "5, false", "1, true", "5, true"})
    void uncontendedCycleShouldRunTheseCommandsOnTheServer(int keyCount, boolean ticket) {
        List<String> keys = IntStream.range(0, keyCount).mapToObj(i -> "account:" + i).toList();
        redis.server().command("CONFIG", "RESETSTAT");

        // the registry's first attempt carries the waiter's ticket (not placed yet): no queue, nothing to take it from
        assertThat(store.tryAcquire(keys, OWNER, 10_000, ticket ? new Ticket("waiter", 0, 60_000) : null).isTaken())
                .isTrue();
        assertThat(store.release(keys.stream().map(key -> new Ownership(key, OWNER.id(), 0)).toList())).isEmpty();

        Map<String, Long> calls = new TreeMap<>(redis.server().commandCalls());
        calls.remove("config|resetstat");
        calls.remove("info");
        // acquire: the clock (the lock's time), one EXISTS for every key and queue, the token (one GETSET setting the
        // counter to the server's clock, which floors every token since issue 27, and reading its old value: was an
        // INCR and a SET until issue 24), a SET PX per key; release: one MGET (the owners), one DEL, one EXISTS of the
        // queues (nobody waits: no publish)
        assertThat(calls).isEqualTo(Map.of("evalsha", 2L, "time", 1L, "exists", 2L, "getset", 1L, "set", (long) keyCount,
                "mget", 1L, "del", 1L));
        assertThat(calls.values().stream().mapToLong(Long::longValue).sum()).as("commands per cycle (was 14 and 50,"
                + " then 10 and 14)").isEqualTo(keyCount == 1 ? 9 : 13);
    }

    @ParameterizedTest(name = "{0} keys")
    @ValueSource(ints = {1, 5})
    void registryShouldSendOneCommandPerAcquireAndReleaseAndNoneToReenter(int keyCount) throws Exception {
        List<String> keys = IntStream.range(0, keyCount).mapToObj(i -> "account:" + i).toList();
        try (RedisLockRegistry registry = RedisLockRegistry.builder(redis.connectionFactory())
                .cleanupInterval(Duration.ZERO).build()) {
            registry.acquire(List.of("warm-up")).close();

            try (RedisMonitor monitor = new RedisMonitor(redis.server())) {
                Lease lease = registry.acquire(keys);
                assertThat(monitor.commandsSent()).as("acquire").containsExactly("evalsha");

                registry.acquire(keys.subList(0, 1)).close();
                assertThat(monitor.commandsSent()).as("re-entry, and closing it").isEmpty();

                lease.close();
                assertThat(monitor.commandsSent()).as("release").containsExactly("evalsha");
            }
        }
    }

    @Test
    void scriptsUnknownToTheServerShouldBeSentOnceAndThenCalledBySha() {
        redis.server().command("SCRIPT", "FLUSH");

        try (RedisMonitor monitor = new RedisMonitor(redis.server())) {
            store.tryAcquire(List.of("k"), OWNER, 10_000);
            assertThat(monitor.commandsSent()).as("after the script cache was lost").containsExactly("evalsha", "eval");
            store.release(List.of(new Ownership("k", OWNER.id(), 0)));
            store.tryAcquire(List.of("k"), OWNER, 10_000);
            assertThat(monitor.commandsSent()).containsExactly("evalsha", "eval", "evalsha");
        }
    }
}
