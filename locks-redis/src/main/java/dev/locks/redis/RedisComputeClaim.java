package dev.locks.redis;

import dev.locks.ComputeOutcome;
import java.time.Instant;

/** What a node's claim of a missing key found in Redis ({@code compute-claim.lua}). */
sealed interface RedisComputeClaim {

    /** The value is stored after all. */
    record Hit(Object value) implements RedisComputeClaim {
    }

    /** The claiming caller is the miss's computer now (its first, or one taking over with the first hint). */
    record Compute(RedisComputeMiss miss, RedisComputeTicket ticket) implements RedisComputeClaim {
    }

    /**
     * Another computer holds the miss; its compute lock ends in {@code pttlMillis} unless the miss ends first.
     *
     * @param computer the computer's description (thread and node)
     * @param startedAt when it took its turn, by the Redis server's clock
     */
    record Wait(RedisComputeMiss miss, long pttlMillis, String computer, Instant startedAt)
            implements RedisComputeClaim {
    }

    /**
     * The awaited miss ended with a {@code null} result or a failure ({@link ComputeOutcome.Value} or
     * {@link ComputeOutcome.Failed}).
     */
    record Done(ComputeOutcome outcome) implements RedisComputeClaim {
    }
}
