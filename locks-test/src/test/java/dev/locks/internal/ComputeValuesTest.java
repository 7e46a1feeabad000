package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.ComputeFailedException;
import dev.locks.ComputeOutcome;
import dev.locks.LocksClock;
import dev.locks.spi.JdkValueSerializer;
import dev.locks.spi.RemoteComputeStore;
import dev.locks.spi.RemoteComputeStore.Claimant;
import dev.locks.spi.RemoteComputeStore.Notice;
import dev.locks.spi.ValueSerializer;
import dev.locks.test.InMemoryComputeServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * What the core does for every store ({@link ComputeValues}): serialization by the cache's serializer, an unreadable
 * stored value as a miss (discarded only if still the same bytes, reported), notices framed and parsed.
 */
class ComputeValuesTest {

    private static final Duration TTL = Duration.ofMinutes(1);

    private final RemoteComputeStore store = new InMemoryComputeServer(LocksClock.system()).node();
    private final ValueSerializer jdk = JdkValueSerializer.withJdkTypes(getClass().getClassLoader(), List.of());
    private final ComputeValues values = new ComputeValues(store, jdk);
    private final List<String> unreadable = new CopyOnWriteArrayList<>();
    private final List<Notice> notices = new CopyOnWriteArrayList<>();
    private int claims;

    ComputeValuesTest() {
        values.subscribe(new ComputeValues.Listener() {
            @Override
            public void noticed(Notice notice) {
                notices.add(notice);
            }

            @Override
            public void unreadable(String key, Throwable cause) {
                unreadable.add(key);
            }
        });
    }

    private ComputeValues.Claim claim(String key) {
        claims++;
        return values.claim(key, new Claimant("c" + claims, "d", TTL, "m" + claims, "", TTL), null);
    }

    /** Stores {@code bytes} as the value of {@code key}, as a node with another serializer might have. */
    private void storeBytes(String key, byte[] bytes) {
        RemoteComputeStore.Claim.Compute turn = (RemoteComputeStore.Claim.Compute) store.claim(key,
                new Claimant("w" + key, "d", TTL, "w" + key, "", TTL), null);
        store.complete(key, turn.ticket(), new RemoteComputeStore.Completion(bytes, TTL, false, Duration.ZERO, "", ""));
    }

    @Test
    void valueShouldBeWrittenAndReadByTheSerializer() {
        ComputeValues.Claim.Compute turn = (ComputeValues.Claim.Compute) claim("k");

        assertThat(values.complete("node", "k", turn.ticket(), List.of("a", 1), null)).isTrue();

        assertThat(store.get("k")).isEqualTo(jdk.serialize(List.of("a", 1)));
        assertThat(values.get("k")).isEqualTo(List.of("a", 1));
        assertThat(claim("k")).isEqualTo(new ComputeValues.Claim.Hit(List.of("a", 1)));
    }

    @Test
    void valueTheSerializerCannotWriteShouldFailWithItsExceptionAndSendNothing() {
        ComputeValues.Claim.Compute turn = (ComputeValues.Claim.Compute) claim("k");

        assertThatThrownBy(() -> values.complete("node", "k", turn.ticket(), new Object(), null))
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(claim("k")).as("the miss goes on").isInstanceOf(ComputeValues.Claim.Wait.class);
    }

    @Test
    void unreadableValueShouldBeDiscardedReportedAndAMissForGetAndClaim() {
        storeBytes("k", new byte[] {1, 2, 3});

        assertThat(values.get("k")).isNull();
        assertThat(unreadable).containsExactly("k");
        assertThat(store.get("k")).as("discarded").isNull();

        storeBytes("k", new byte[] {4, 5, 6});
        assertThat(claim("k")).as("claimed again once discarded").isInstanceOf(ComputeValues.Claim.Compute.class);
        assertThat(unreadable).containsExactly("k", "k");
        assertThat(store.get("k")).isNull();
    }

    @Test
    void unreadableValueOfAnInvalidatedMissShouldBeReportedAndMissing() {
        ComputeValues.Claim.Compute turn = (ComputeValues.Claim.Compute) claim("k");
        values.invalidate("node", "k");
        store.complete("k", turn.ticket(), new RemoteComputeStore.Completion(new byte[] {9}, null, false,
                Duration.ZERO, "", ""));

        assertThat(values.invalidatedValue("k", turn.miss().id())).isNull();
        assertThat(unreadable).containsExactly("k");
    }

    @Test
    void failureShouldCrossWithItsClassAndMessageAndNoticesShouldBeParsed() {
        ComputeValues.Claim.Compute turn = (ComputeValues.Claim.Compute) claim("k");

        assertThat(values.fail("node", "k", turn.ticket(), new IllegalStateException("boom"))).isTrue();

        ComputeValues.Claim.Done done = (ComputeValues.Claim.Done) values.claim("k",
                new Claimant("c", "d", TTL, "m", "", TTL), turn.miss());
        assertThat(((ComputeOutcome.Failed) done.outcome()).error()).isInstanceOfSatisfying(
                ComputeFailedException.class, e -> assertThat(e.originalMessage()).isEqualTo("boom"));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !notices.isEmpty());
        assertThat(notices).containsExactly(Notice.failed("node", "k", turn.miss().id(),
                new IllegalStateException("boom")));
    }

    /**
     * A megabyte-long failure message reaches other nodes' waiters cut short whichever way they learn of it: the
     * miss's record, as the notice (MariaDB's waiter that read the record got the whole megabyte).
     */
    @Test
    void aFailuresMessageShouldBeStoredCutShort() {
        ComputeValues.Claim.Compute turn = (ComputeValues.Claim.Compute) claim("long");

        values.fail("node", "long", turn.ticket(), new IllegalStateException("long " + "\u00e9".repeat(1 << 20)));

        ComputeValues.Claim.Done done = (ComputeValues.Claim.Done) values.claim("long",
                new Claimant("c", "d", TTL, "m", "", TTL), turn.miss());
        assertThat(((ComputeOutcome.Failed) done.outcome()).error()).isInstanceOfSatisfying(
                ComputeFailedException.class, e -> assertThat(e.originalMessage()).startsWith("long \u00e9")
                        .satisfies(message -> assertThat(message.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                                .hasSizeLessThanOrEqualTo(ComputeValues.MAX_FAILURE_MESSAGE_BYTES)));
    }
}
