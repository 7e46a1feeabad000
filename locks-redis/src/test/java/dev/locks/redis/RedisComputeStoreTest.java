package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.ComputeFailedException;
import dev.locks.ComputeOutcome;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.internal.ComputeEvents;
import dev.locks.internal.UnreadableValues;
import dev.locks.redis.test.RedisServerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.serializer.RedisSerializer;

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
        store = new RedisComputeStore(redis.connectionFactory(), "locks:", RedisSerializer.java(),
                new UnreadableValues(new ComputeEvents(LocksObserver.NONE, LocksClock.system()), LocksClock.system()));
    }

    private RedisComputeClaim claim(String key, String hint, RedisComputeMiss awaited) {
        claims++;
        return store.claim(key, new RedisComputeStore.Claimant("computer-" + claims, "thread-" + claims + " @ node",
                TIMEOUT, "miss-" + claims, hint, TTL), awaited);
    }

    private void expireLock(String key) {
        redis.server().command("DEL", "locks:compute:" + key);
    }

    @Test
    void firstClaimShouldComputeAndTheNextWaitForIt() {
        Instant before = Instant.now().minusSeconds(1);
        RedisComputeClaim.Compute first = (RedisComputeClaim.Compute) claim("k", "first hint", null);

        assertThat(first.miss()).isEqualTo(new RedisComputeMiss("miss-1", 0, "first hint", TTL.toMillis()));
        assertThat(first.ticket()).isEqualTo(new RedisComputeTicket("miss-1", 0, "computer-1"));
        assertThat((Long) redis.server().command("PTTL", "locks:compute:k")).as("the compute lock's PX")
                .isBetween(1L, TIMEOUT.toMillis());
        RedisComputeClaim.Wait second = (RedisComputeClaim.Wait) claim("k", "second hint", null);
        assertThat(second.miss()).isEqualTo(first.miss());
        assertThat(second.computer()).isEqualTo("thread-1 @ node");
        assertThat(second.pttlMillis()).isBetween(1L, TIMEOUT.toMillis());
        assertThat(second.startedAt()).isBetween(before, Instant.now().plusSeconds(1));
    }

    @Test
    void waiterShouldTakeOverAnExpiredLockWithTheFirstHintWhileANewCallerStartsANewMiss() {
        RedisComputeClaim.Compute first = (RedisComputeClaim.Compute) claim("k", "first hint", null);
        expireLock("k");

        RedisComputeClaim.Compute taken = (RedisComputeClaim.Compute) claim("k", "own hint", first.miss());

        assertThat(taken.miss()).isEqualTo(new RedisComputeMiss("miss-1", 1, "first hint", TTL.toMillis()));
        assertThat(store.fail("node", "k", first.ticket(), new IllegalStateException())).as("demoted").isFalse();
        expireLock("k");
        RedisComputeClaim.Compute fresh = (RedisComputeClaim.Compute) claim("k", "own hint", null);
        assertThat(fresh.miss()).isEqualTo(new RedisComputeMiss("miss-3", 0, "own hint", TTL.toMillis()));
        assertThat(store.complete("node", "k", taken.ticket(), "late", null)).as("its miss ended").isFalse();
    }

    @Test
    void firstCompletionOfAMissShouldWinFromAnyOfItsComputers() {
        RedisComputeClaim.Compute first = (RedisComputeClaim.Compute) claim("k", "", null);
        expireLock("k");
        RedisComputeClaim.Compute second = (RedisComputeClaim.Compute) claim("k", "", first.miss());

        assertThat(store.complete("node", "k", first.ticket(), "first", null)).isTrue();

        assertThat(store.complete("node", "k", second.ticket(), "second", null)).isFalse();
        assertThat(store.fail("node", "k", second.ticket(), new IllegalStateException())).isFalse();
        assertThat(store.get("k")).isEqualTo("first");
        assertThat((Long) redis.server().command("PTTL", "locks:value:k")).as("the miss's TTL")
                .isBetween(1L, TTL.toMillis());
        assertThat(redis.server().command("HGET", "locks:compute:k", "state")).isEqualTo("done");
        assertThat((Long) redis.server().command("PTTL", "locks:compute:k"))
                .isBetween(1L, RedisComputeStore.DONE_GRACE.toMillis());
        assertThat(claim("k", "", null)).isEqualTo(new RedisComputeClaim.Hit("first"));
    }

    @Test
    void waiterWhoseNoticeWasLostShouldStillLearnAFailureOrANullResult() {
        RedisComputeClaim.Compute failing = (RedisComputeClaim.Compute) claim("failing", "", null);
        RedisComputeClaim.Compute nothing = (RedisComputeClaim.Compute) claim("nothing", "", null);
        assertThat(store.fail("node", "failing", failing.ticket(), new IOException("boom"))).isTrue();
        assertThat(store.complete("node", "nothing", nothing.ticket(), null, null)).isTrue();

        RedisComputeClaim.Done failed = (RedisComputeClaim.Done) claim("failing", "", failing.miss());
        Throwable error = ((ComputeOutcome.Failed) failed.outcome()).error();
        assertThat(error).isInstanceOfSatisfying(ComputeFailedException.class, e -> {
            assertThat(e.originalClassName()).isEqualTo("java.io.IOException");
            assertThat(e.originalMessage()).isEqualTo("boom");
        });
        assertThat(claim("nothing", "", nothing.miss()))
                .isEqualTo(new RedisComputeClaim.Done(new ComputeOutcome.Value(null)));
        assertThat(redis.server().command("EXISTS", "locks:value:nothing")).isEqualTo(0L);
        assertThat(claim("failing", "", null)).as("a new caller starts a new miss")
                .isInstanceOf(RedisComputeClaim.Compute.class);
    }

    @Test
    void failureWithoutAMessageShouldCrossWithoutOne() {
        RedisComputeClaim.Compute turn = (RedisComputeClaim.Compute) claim("k", "", null);
        store.fail("node", "k", turn.ticket(), new IllegalStateException());

        RedisComputeClaim.Done done = (RedisComputeClaim.Done) claim("k", "", turn.miss());

        ComputeFailedException failed = (ComputeFailedException) ((ComputeOutcome.Failed) done.outcome()).error();
        assertThat(failed.originalMessage()).isNull();
        String published = RedisComputeNotice.failed("n", "k", "m", new IllegalStateException()).encode();
        assertThat(RedisComputeNotice.decode(ReleaseMessage.decode(published.getBytes(StandardCharsets.UTF_8)).get(0)))
                .isEqualTo(new RedisComputeNotice("n", "k", "m", "failed", "java.lang.IllegalStateException", null));
    }

    @Test
    void waiterShouldStartANewMissWhenTheValueOfItsMissIsGone() {
        RedisComputeClaim.Compute turn = (RedisComputeClaim.Compute) claim("k", "", null);
        store.complete("node", "k", turn.ticket(), "v", Duration.ZERO);
        assertThat(redis.server().command("PTTL", "locks:value:k")).as("no expiry").isEqualTo(-1L);

        store.invalidate("k", RedisComputeNotice.invalidated("node", "k"));

        assertThat(claim("k", "", turn.miss())).isInstanceOfSatisfying(RedisComputeClaim.Compute.class,
                fresh -> assertThat(fresh.miss().id()).isNotEqualTo(turn.miss().id()));
    }

    @Test
    void ticketIdsShouldRoundTripAndForeignOnesBeRefused() {
        RedisComputeTicket ticket = new RedisComputeTicket("ab12.3", 2, "ab12.4");

        assertThat(RedisComputeTicket.of(ticket.toTicket("k"))).isEqualTo(ticket);
        for (String foreign : List.of("", "forged", "m/0", "m/x/c", "/0/c", "m//c", "m/0/", "m/0/c/d")) {
            assertThat(RedisComputeTicket.of(new dev.locks.ComputeTicket("k", foreign))).as(foreign).isNull();
        }
    }
}
