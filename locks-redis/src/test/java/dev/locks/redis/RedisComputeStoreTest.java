package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.redis.test.RedisServerExtension;
import dev.locks.spi.RemoteComputeStore.Claim;
import dev.locks.spi.RemoteComputeStore.Completion;
import dev.locks.spi.RemoteComputeStore.Claimant;
import dev.locks.spi.RemoteComputeStore.Miss;
import dev.locks.spi.RemoteComputeStore.Notice;
import dev.locks.spi.RemoteComputeStore.Ticket;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The scripts' decisions, one by one, and what they leave in Redis. */
class RedisComputeStoreTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(1);

    private RedisComputeStore store;
    private int claims;

    @BeforeEach
    void newStore() {
        store = new RedisComputeStore(redis.connectionFactory(), "locks:");
    }

    private Claim claim(String key, String hint, Miss awaited) {
        claims++;
        return store.claim(key, new Claimant("computer-" + claims, "thread-" + claims + " @ node",
                TIMEOUT, "miss-" + claims, hint, TTL), awaited);
    }

    private boolean complete(String key, Ticket ticket, String value, Duration ttl) {
        return store.complete(key, ticket, new Completion(value == null ? null : bytes(value), ttl, false,
                Duration.ZERO, "notice", "unstored"));
    }

    private boolean fail(String key, Ticket ticket, Throwable error) {
        return store.fail(key, ticket, error.getClass().getName(), error.getMessage(), "notice");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private void expireLock(String key) {
        redis.server().command("DEL", "locks:compute:" + key);
    }

    @Test
    void firstClaimShouldComputeAndTheNextWaitForIt() {
        Instant before = Instant.now().minusSeconds(1);
        Claim.Compute first = (Claim.Compute) claim("k", "first hint", null);

        assertThat(first.miss()).isEqualTo(new Miss("miss-1", 0, "first hint", TTL.toMillis()));
        assertThat(first.ticket()).isEqualTo(new Ticket("miss-1", 0, "computer-1"));
        assertThat((Long) redis.server().command("PTTL", "locks:compute:k")).as("the compute lock's PX")
                .isBetween(1L, TIMEOUT.toMillis());
        Claim.Wait second = (Claim.Wait) claim("k", "second hint", null);
        assertThat(second.miss()).isEqualTo(first.miss());
        assertThat(second.computer()).isEqualTo("thread-1 @ node");
        assertThat(second.pttlMillis()).isBetween(1L, TIMEOUT.toMillis());
        assertThat(second.startedAt()).isBetween(before, Instant.now().plusSeconds(1));
    }

    @Test
    void waiterShouldTakeOverAnExpiredLockWithTheFirstHintWhileANewCallerStartsANewMiss() {
        Claim.Compute first = (Claim.Compute) claim("k", "first hint", null);
        expireLock("k");

        Claim.Compute taken = (Claim.Compute) claim("k", "own hint", first.miss());

        assertThat(taken.miss()).isEqualTo(new Miss("miss-1", 1, "first hint", TTL.toMillis()));
        assertThat(fail("k", first.ticket(), new IllegalStateException())).as("demoted").isFalse();
        expireLock("k");
        Claim.Compute fresh = (Claim.Compute) claim("k", "own hint", null);
        assertThat(fresh.miss()).isEqualTo(new Miss("miss-3", 0, "own hint", TTL.toMillis()));
        assertThat(complete("k", taken.ticket(), "late", null)).as("its miss ended").isFalse();
    }

    @Test
    void firstCompletionOfAMissShouldWinFromAnyOfItsComputers() {
        Claim.Compute first = (Claim.Compute) claim("k", "", null);
        expireLock("k");
        Claim.Compute second = (Claim.Compute) claim("k", "", first.miss());

        assertThat(complete("k", first.ticket(), "first", null)).isTrue();

        assertThat(complete("k", second.ticket(), "second", null)).isFalse();
        assertThat(fail("k", second.ticket(), new IllegalStateException())).isFalse();
        assertThat(store.get("k")).isEqualTo(bytes("first"));
        assertThat((Long) redis.server().command("PTTL", "locks:value:k")).as("the miss's TTL")
                .isBetween(1L, TTL.toMillis());
        assertThat(redis.server().command("HGET", "locks:compute:k", "state")).isEqualTo("done");
        assertThat((Long) redis.server().command("PTTL", "locks:compute:k"))
                .isBetween(1L, RedisComputeStore.DONE_GRACE.toMillis());
        assertThat(claim("k", "", null)).isInstanceOfSatisfying(Claim.Hit.class,
                hit -> assertThat(hit.value()).isEqualTo(bytes("first")));
    }

    @Test
    void waiterWhoseNoticeWasLostShouldStillLearnAFailureOrANullResult() {
        Claim.Compute failing = (Claim.Compute) claim("failing", "", null);
        Claim.Compute nothing = (Claim.Compute) claim("nothing", "", null);
        assertThat(fail("failing", failing.ticket(), new IOException("boom"))).isTrue();
        assertThat(complete("nothing", nothing.ticket(), null, null)).isTrue();

        assertThat(claim("failing", "", failing.miss()))
                .isEqualTo(new Claim.Done(Notice.Outcome.FAILED, null, "java.io.IOException", "boom"));
        assertThat(claim("nothing", "", nothing.miss()))
                .isEqualTo(new Claim.Done(Notice.Outcome.NULL, null, null, null));
        assertThat(redis.server().command("EXISTS", "locks:value:nothing")).isEqualTo(0L);
        assertThat(claim("failing", "", null)).as("a new caller starts a new miss")
                .isInstanceOf(Claim.Compute.class);
    }

    @Test
    void failureWithoutAMessageShouldCrossWithoutOne() {
        Claim.Compute turn = (Claim.Compute) claim("k", "", null);
        fail("k", turn.ticket(), new IllegalStateException());

        assertThat(claim("k", "", turn.miss())).as("a message of \"\" would not do")
                .isEqualTo(new Claim.Done(Notice.Outcome.FAILED, null, "java.lang.IllegalStateException", null));
    }

    @Test
    void waiterShouldStartANewMissWhenTheValueOfItsMissIsGone() {
        Claim.Compute turn = (Claim.Compute) claim("k", "", null);
        complete("k", turn.ticket(), "v", Duration.ZERO);
        assertThat(redis.server().command("PTTL", "locks:value:k")).as("no expiry").isEqualTo(-1L);

        store.invalidate("k", "notice");

        assertThat(claim("k", "", turn.miss())).isInstanceOfSatisfying(Claim.Compute.class,
                fresh -> assertThat(fresh.miss().id()).isNotEqualTo(turn.miss().id()));
    }
}
