package dev.locks.redis;

import dev.locks.LocksObserver;
import dev.locks.contract.ComputeCacheCallers;
import dev.locks.redis.test.RedisConnections;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The other JVM of {@link RedisComputeCrossJvmTest}, started as
 * {@code java -cp <class path> dev.locks.redis.RedisComputeWorker <port> <key> <callers>}. It builds its
 * cache and prints {@code READY}; on a {@code GO} line from its standard input, {@code <callers>} threads at
 * once fetch-or-compute {@code <key>} with {@link #computation}; it prints {@code RESULTS}, the distinct
 * values they got and how their calls ended ({@link Outcomes}), and exits.
 */
public final class RedisComputeWorker {

    /** How long a computation takes, so that every caller of both JVMs comes while it runs. */
    static final Duration COMPUTING = Duration.ofMillis(500);

    private RedisComputeWorker() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String key = args[1];
        int count = Integer.parseInt(args[2]);
        LettuceConnectionFactory factory = RedisConnections.connectionFactory(port);
        Outcomes outcomes = new Outcomes();
        try (RedisComputeCache cache = RedisComputeCache.builder(factory).observer(outcomes).build()) {
            StringRedisTemplate redis = new StringRedisTemplate(factory);
            System.out.println("READY");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (!"GO".equals(in.readLine())) {
                throw new IllegalStateException("expected GO");
            }
            TreeSet<String> values = ComputeCacheCallers.fetchAtOnce(cache, key, count, computation(redis, "worker"));
            System.out.println("RESULTS " + values + " " + outcomes);
            System.out.flush();
        } finally {
            factory.destroy();
        }
    }

    /** How the calls of one JVM ended, as its observer saw them: {@code {hit=0, computed=1, waited=49}}. */
    static final class Outcomes implements LocksObserver {

        private final Map<ComputeResult, AtomicInteger> counts = new EnumMap<>(ComputeResult.class);

        Outcomes() {
            for (ComputeResult result : ComputeResult.values()) {
                counts.put(result, new AtomicInteger());
            }
        }

        @Override
        public void onCompute(ComputeResult result, long nanos) {
            counts.get(result).incrementAndGet();
        }

        int count(ComputeResult result) {
            return counts.get(result).get();
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("{");
            counts.forEach((result, count) -> text.append(text.length() > 1 ? ", " : "").append(result.tag())
                    .append('=').append(count.get()));
            return text.append('}').toString();
        }
    }

    /** What both JVMs compute: counts itself in Redis ({@code computations}), takes a while, names its JVM. */
    static Supplier<String> computation(StringRedisTemplate redis, String jvm) {
        return () -> {
            redis.opsForValue().increment("computations");
            try {
                Thread.sleep(COMPUTING.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "computed by the " + jvm + " JVM";
        };
    }
}
