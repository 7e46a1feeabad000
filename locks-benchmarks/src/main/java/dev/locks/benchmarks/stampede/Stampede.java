package dev.locks.benchmarks.stampede;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.locks.benchmarks.proto.ConditionFlight;
import dev.locks.benchmarks.report.ResultLine;
import dev.locks.benchmarks.report.Stats;
import dev.locks.benchmarks.spring.BenchmarkContext;
import dev.locks.benchmarks.spring.SlowQuotes;
import dev.locks.local.LocalComputeCache;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A thousand threads miss one key at once; the value takes {@value BenchmarkContext#COMPUTE_MILLIS} ms to
 * compute. Per trial: how many computations ran (must be 1) and how long until every thread had the value,
 * from the moment the start gate opened. This project ({@code fetchOrCompute}, and {@code @FetchOrCompute}
 * through the starter) against Caffeine's {@code get(key, fn)}, Spring's {@code @Cacheable(sync = true)} on
 * Caffeine, and the floor: a future in a {@code ConcurrentHashMap}, completed by the first caller and joined
 * by the others (the textbook single flight).
 *
 * <p>The threads are started and parked on the gate before the clock starts, and stay parked after being
 * served until all are (a thread's exit costs CPU that the others still waiting would need). Waking a thousand
 * threads is part of every result alike: the harness alone (every thread returns at once) shows how much.
 * Each trial also reports its worst caller's own wait, from its call to its value, which leaves the gate out.
 *
 * <p>Arguments: {@code [trials] [threads] [--proto]}, default 10, 1000; {@code --proto} measures the fan-out
 * prototype ({@link ConditionFlight}) against the floor instead.
 */
public final class Stampede {

    private static final Duration TTL = Duration.ofMinutes(5);

    private Stampede() {
    }

    public static void main(String[] args) throws Exception {
        int trials = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        SlowQuotes direct = new SlowQuotes(BenchmarkContext.COMPUTE_MILLIS);
        if (args.length > 2 && args[2].equals("--proto")) {
            prototypes(direct, trials, threads);
            return;
        }

        // the harness alone: every thread passes the gate and returns at once (what waking 1,000 threads costs)
        measure("harnessOnly", key -> key, direct, trials, threads);

        LocalComputeCache computeCache = LocalComputeCache.builder().build();
        measure("thisProject", key -> computeCache.fetchOrCompute(key, TTL, () -> direct.compute(key)), direct,
                trials, threads);

        Cache<String, Object> caffeine = Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(TTL).build();
        measure("caffeineGet", key -> caffeine.get(key, direct::compute), direct, trials, threads);

        ConcurrentHashMap<String, CompletableFuture<Object>> flights = new ConcurrentHashMap<>();
        measure("floorFutureInMap", key -> singleFlight(flights, key, direct), direct, trials, threads);

        try (ConfigurableApplicationContext context = BenchmarkContext.start()) {
            SlowQuotes quotes = context.getBean(SlowQuotes.class);
            measure("thisProjectAnnotation", quotes::quote, quotes, trials, threads);
            measure("cacheableSync", quotes::cachedQuote, quotes, trials, threads);
        }
    }

    /** The fan-out alone: waiters re-taking a lock one by one ({@link ConditionFlight}) against the floor. */
    private static void prototypes(SlowQuotes direct, int trials, int threads) throws InterruptedException {
        ConditionFlight conditionFlight = new ConditionFlight();
        measure("protoConditionFlight", key -> conditionFlight.get(key, direct::compute), direct, trials, threads);
        ConcurrentHashMap<String, CompletableFuture<Object>> flights = new ConcurrentHashMap<>();
        measure("floorFutureInMap", key -> singleFlight(flights, key, direct), direct, trials, threads);
        LocalComputeCache computeCache = LocalComputeCache.builder().build();
        measure("thisProject", key -> computeCache.fetchOrCompute(key, TTL, () -> direct.compute(key)), direct,
                trials, threads);
    }

    private static Object singleFlight(ConcurrentHashMap<String, CompletableFuture<Object>> flights, String key,
            SlowQuotes quotes) {
        CompletableFuture<Object> mine = new CompletableFuture<>();
        CompletableFuture<Object> theirs = flights.putIfAbsent(key, mine);
        if (theirs != null) {
            return theirs.join();
        }
        mine.complete(quotes.compute(key));
        return mine.join();
    }

    private static void measure(String name, Function<String, Object> get, SlowQuotes quotes, int trials, int threads)
            throws InterruptedException {
        for (int warmup = 0; warmup < 3; warmup++) {
            trial(name + ":warmup:" + warmup, get, quotes, threads);
        }
        double[] allServedMillis = new double[trials];
        double[] worstWaitMillis = new double[trials];
        int maxComputations = 0;
        int minComputations = Integer.MAX_VALUE;
        for (int i = 0; i < trials; i++) {
            Trial trial = trial(name + ":" + i, get, quotes, threads);
            allServedMillis[i] = trial.allServedNanos / 1e6;
            worstWaitMillis[i] = trial.worstWaitNanos / 1e6;
            maxComputations = Math.max(maxComputations, trial.computations);
            minComputations = Math.min(minComputations, trial.computations);
        }
        Stats stats = Stats.of(allServedMillis);
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("computationsPerTrialMin", Integer.toString(minComputations));
        extra.put("computationsPerTrialMax", Integer.toString(maxComputations));
        extra.put("computeMillis", Long.toString(BenchmarkContext.COMPUTE_MILLIS));
        extra.put("threads", Integer.toString(threads));
        extra.put("trials", Integer.toString(trials));
        extra.put("p90", String.format(Locale.ROOT, "%.1f", stats.percentile(90)));
        Stats waits = Stats.of(worstWaitMillis);
        extra.put("worstWaitMs", String.format(Locale.ROOT, "%.1f", waits.median()));
        extra.put("worstWaitMaxMs", String.format(Locale.ROOT, "%.1f", waits.max()));
        ResultLine.of("stampede", name, "ms", stats, extra).print();
    }

    private record Trial(int computations, long allServedNanos, long worstWaitNanos) {
    }

    /** One stampede on a fresh key: every thread parked on the gate, then released at once. */
    private static Trial trial(String key, Function<String, Object> get, SlowQuotes quotes, int threads)
            throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch served = new CountDownLatch(threads);
        CountDownLatch leave = new CountDownLatch(1);
        long[] calledAt = new long[threads];
        long[] servedAt = new long[threads];
        Object[] values = new Object[threads];
        Thread[] callers = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            int me = i;
            callers[i] = new Thread(() -> {
                ready.countDown();
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    return;
                }
                calledAt[me] = System.nanoTime();
                values[me] = get.apply(key);
                servedAt[me] = System.nanoTime();
                served.countDown();
                try {
                    leave.await(); // no thread exits (which costs CPU here) while others still wait
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "caller-" + i);
            callers[i].start();
        }
        ready.await();
        int before = quotes.computations();
        long opened = System.nanoTime();
        gate.countDown();
        served.await();
        leave.countDown();
        for (Thread caller : callers) {
            caller.join();
        }
        long last = opened;
        long worstWait = 0;
        for (int i = 0; i < threads; i++) {
            worstWait = Math.max(worstWait, servedAt[i] - calledAt[i]);
            if (values[i] == null || !values[i].equals(values[0])) {
                throw new IllegalStateException("caller " + i + " got " + values[i] + ", caller 0 got " + values[0]);
            }
            last = Math.max(last, servedAt[i]);
        }
        return new Trial(quotes.computations() - before, last - opened, worstWait);
    }
}
