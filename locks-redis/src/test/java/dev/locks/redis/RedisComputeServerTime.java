package dev.locks.redis;

import dev.locks.redis.test.RedisServer;
import dev.locks.redis.test.RespClient;
import java.time.Duration;

/**
 * Lets time pass for a test's Redis server without sleeping: every key that expires has its remaining time
 * shortened by the duration, and is deleted when that leaves none, as the server itself would have done. The
 * server's clock keeps running meanwhile, so expiries come a few milliseconds early, never late.
 */
final class RedisComputeServerTime {

    private static final String AGE = """
            local by = tonumber(ARGV[1])
            local aged = 0
            for _, key in ipairs(redis.call('KEYS', '*')) do
              local left = redis.call('PTTL', key)
              if left > 0 then
                if left <= by then
                  redis.call('DEL', key)
                else
                  redis.call('PEXPIRE', key, left - by)
                end
                aged = aged + 1
              end
            end
            return aged
            """;

    private RedisComputeServerTime() {
    }

    /** Ages every key of {@code server} by {@code duration}; returns how many keys had an expiry. */
    static long elapse(RedisServer server, Duration duration) {
        return elapse(server.port(), duration);
    }

    /** As {@link #elapse(RedisServer, Duration)}, for the server on {@code port} (a cluster's master, say). */
    static long elapse(int port, Duration duration) {
        return (Long) RespClient.call(port, "EVAL", AGE, "0", Long.toString(duration.toMillis()));
    }
}
