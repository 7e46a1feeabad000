package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.ComputeFailedException;
import dev.locks.ComputeOutcome;
import dev.locks.redis.test.RedisServerExtension;
import dev.locks.internal.ComputeNoticeFrames;
import dev.locks.internal.ComputeValues;
import dev.locks.internal.ComputeValues.Claim;
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
import org.springframework.data.redis.serializer.RedisSerializer;

/** The scripts' decisions, one by one (through the core's view of values), and what they leave in Redis. */
class RedisComputeStoreTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(1);

    private ComputeValues store;
    private int claims;

    @BeforeEach
    void newStore() {
        store = new ComputeValues(new RedisComputeStore(redis.connectionFactory(), "locks:"),
                new RedisValueSerializer(RedisSerializer.java()));
    }

    private Claim claim(String key, String hint, Miss awaited) {
        claims++;
        return store.claim(key, new Claimant("computer-" + claims, "thread-" + claims + " @ node",
                TIMEOUT, "miss-" + claims, hint, TTL), awaited);
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
        assertThat(store.fail("node", "k", first.ticket(), new IllegalStateException())).as("demoted").isFalse();
        expireLock("k");
        Claim.Compute fresh = (Claim.Compute) claim("k", "own hint", null);
        assertThat(fresh.miss()).isEqualTo(new Miss("miss-3", 0, "own hint", TTL.toMillis()));
        assertThat(store.complete("node", "k", taken.ticket(), "late", null)).as("its miss ended").isFalse();
    }

    @Test
    void firstCompletionOfAMissShouldWinFromAnyOfItsComputers() {
        Claim.Compute first = (Claim.Compute) claim("k", "", null);
        expireLock("k");
        Claim.Compute second = (Claim.Compute) claim("k", "", first.miss());

        assertThat(store.complete("node", "k", first.ticket(), "first", null)).isTrue();

        assertThat(store.complete("node", "k", second.ticket(), "second", null)).isFalse();
        assertThat(store.fail("node", "k", second.ticket(), new IllegalStateException())).isFalse();
        assertThat(store.get("k")).isEqualTo("first");
        assertThat((Long) redis.server().command("PTTL", "locks:value:k")).as("the miss's TTL")
                .isBetween(1L, TTL.toMillis());
        assertThat(redis.server().command("HGET", "locks:compute:k", "state")).isEqualTo("done");
        assertThat((Long) redis.server().command("PTTL", "locks:compute:k"))
                .isBetween(1L, RedisComputeStore.DONE_GRACE.toMillis());
        assertThat(claim("k", "", null)).isEqualTo(new Claim.Hit("first"));
    }

    @Test
    void waiterWhoseNoticeWasLostShouldStillLearnAFailureOrANullResult() {
        Claim.Compute failing = (Claim.Compute) claim("failing", "", null);
        Claim.Compute nothing = (Claim.Compute) claim("nothing", "", null);
        assertThat(store.fail("node", "failing", failing.ticket(), new IOException("boom"))).isTrue();
        assertThat(store.complete("node", "nothing", nothing.ticket(), null, null)).isTrue();

        Claim.Done failed = (Claim.Done) claim("failing", "", failing.miss());
        Throwable error = ((ComputeOutcome.Failed) failed.outcome()).error();
        assertThat(error).isInstanceOfSatisfying(ComputeFailedException.class, e -> {
            assertThat(e.originalClassName()).isEqualTo("java.io.IOException");
            assertThat(e.originalMessage()).isEqualTo("boom");
        });
        assertThat(claim("nothing", "", nothing.miss()))
                .isEqualTo(new Claim.Done(new ComputeOutcome.Value(null)));
        assertThat(redis.server().command("EXISTS", "locks:value:nothing")).isEqualTo(0L);
        assertThat(claim("failing", "", null)).as("a new caller starts a new miss")
                .isInstanceOf(Claim.Compute.class);
    }

    @Test
    void failureWithoutAMessageShouldCrossWithoutOne() {
        Claim.Compute turn = (Claim.Compute) claim("k", "", null);
        store.fail("node", "k", turn.ticket(), new IllegalStateException());

        Claim.Done done = (Claim.Done) claim("k", "", turn.miss());

        ComputeFailedException failed = (ComputeFailedException) ((ComputeOutcome.Failed) done.outcome()).error();
        assertThat(failed.originalMessage()).isNull();
        String published = ReleaseMessage.encode(ComputeNoticeFrames.frame(
                Notice.failed("n", "k", "m", new IllegalStateException()), Integer.MAX_VALUE));
        assertThat(ComputeNoticeFrames.parse(ReleaseMessage.decode(published.getBytes(StandardCharsets.UTF_8)).get(0)))
                .isEqualTo(new Notice("n", "k", "m", Notice.Outcome.FAILED, "java.lang.IllegalStateException", null));
    }

    @Test
    void waiterShouldStartANewMissWhenTheValueOfItsMissIsGone() {
        Claim.Compute turn = (Claim.Compute) claim("k", "", null);
        store.complete("node", "k", turn.ticket(), "v", Duration.ZERO);
        assertThat(redis.server().command("PTTL", "locks:value:k")).as("no expiry").isEqualTo(-1L);

        store.invalidate("node", "k");

        assertThat(claim("k", "", turn.miss())).isInstanceOfSatisfying(Claim.Compute.class,
                fresh -> assertThat(fresh.miss().id()).isNotEqualTo(turn.miss().id()));
    }
}
