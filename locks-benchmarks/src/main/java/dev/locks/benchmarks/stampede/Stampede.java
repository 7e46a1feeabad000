package dev.locks.benchmarks.stampede;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.locks.benchmarks.proto.ConditionFlight;
import dev.locks.benchmarks.report.ResultLine;
import dev.locks.benchmarks.report.Stats;
import dev.locks.benchmarks.spring.BenchmarkContext;
import dev.locks.benchmarks.spring.SlowQuotes;
import dev.locks.local.LocalComputeCache;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
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
 * Caffeine, and two floors, both measured in every run: a future in a {@code ConcurrentHashMap}, completed by
 * the first caller and joined by the others (the textbook single flight), and {@code ConcurrentHashMap}'s own
 * {@code computeIfAbsent}, whose waiters block on the bin's monitor.
 *
 * <p>Each trial also reports its fan-out: from the end of the computation to the last caller served, which
 * leaves out the gate and the computation and is all a single flight adds to the floor's work.
 *
 * <p>Time on a loaded machine says little, so each trial also counts the context switches of the caller
 * threads (from {@code /proc/self/task/<tid>/status}, between the gate and the last caller served): voluntary
 * ones are the times a caller blocked (parking for the value, and again for any lock it must take after
 * being woken), involuntary ones are preemptions, which the load adds. The report gives both per caller.
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
    /** The name prefix of the caller threads (short: Linux shows 15 characters of a thread's name). */
    private static final String CALLER = "caller-";

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

        ConcurrentHashMap<String, Object> values = new ConcurrentHashMap<>();
        measure("floorComputeIfAbsent", key -> values.computeIfAbsent(key, direct::compute), direct, trials,
                threads);

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
        double[] fanOutMillis = new double[trials];
        double[] voluntary = new double[trials];
        double[] involuntary = new double[trials];
        int maxComputations = 0;
        int minComputations = Integer.MAX_VALUE;
        for (int i = 0; i < trials; i++) {
            Trial trial = trial(name + ":" + i, get, quotes, threads);
            allServedMillis[i] = trial.allServedNanos / 1e6;
            worstWaitMillis[i] = trial.worstWaitNanos / 1e6;
            fanOutMillis[i] = trial.fanOutNanos / 1e6;
            voluntary[i] = trial.switches.voluntary / (double) threads;
            involuntary[i] = trial.switches.involuntary / (double) threads;
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
        Stats fanOut = Stats.of(fanOutMillis);
        extra.put("fanOutMs", String.format(Locale.ROOT, "%.2f", fanOut.median()));
        extra.put("fanOutMaxMs", String.format(Locale.ROOT, "%.2f", fanOut.max()));
        if (Switches.COUNTED) {
            extra.put("voluntarySwitchesPerCaller", String.format(Locale.ROOT, "%.2f", Stats.of(voluntary).median()));
            extra.put("involuntarySwitchesPerCaller",
                    String.format(Locale.ROOT, "%.2f", Stats.of(involuntary).median()));
        }
        ResultLine.of("stampede", name, "ms", stats, extra).print();
    }

    private record Trial(int computations, long allServedNanos, long worstWaitNanos, long fanOutNanos,
            Switches switches) {
    }

    /** Context switches of some threads of this JVM, summed, as Linux counts them (zero elsewhere). */
    private record Switches(long voluntary, long involuntary) {

        static final boolean COUNTED = Files.isDirectory(Path.of("/proc/self/task"));

        /** The switches so far of the threads whose name starts with {@code prefix}. */
        static Switches of(String prefix) {
            if (!COUNTED) {
                return new Switches(0, 0);
            }
            long voluntary = 0;
            long involuntary = 0;
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
                for (Path task : tasks) {
                    List<String> status;
                    try {
                        status = Files.readAllLines(task.resolve("status"));
                    } catch (IOException gone) {
                        continue;
                    }
                    if (status.isEmpty() || !status.get(0).startsWith("Name:\t" + prefix)) {
                        continue; // Linux keeps the first 15 characters of a thread's name
                    }
                    for (String line : status) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            voluntary += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            involuntary += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return new Switches(voluntary, involuntary);
        }

        Switches minus(Switches before) {
            return new Switches(voluntary - before.voluntary, involuntary - before.involuntary);
        }
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
            }, CALLER + i);
            callers[i].start();
        }
        ready.await();
        waitUntilParked(callers);
        Switches switchesBefore = Switches.of(CALLER);
        int before = quotes.computations();
        long opened = System.nanoTime();
        gate.countDown();
        served.await();
        Switches switches = Switches.of(CALLER).minus(switchesBefore); // all still alive, parked on leave
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
        int computations = quotes.computations() - before;
        long fanOut = computations == 0 ? 0 : Math.max(0, last - quotes.computedAt());
        return new Trial(computations, last - opened, worstWait, fanOut, switches);
    }

    /** Until every caller is parked on the gate, so that the switches counted from here are the trial's. */
    private static void waitUntilParked(Thread[] callers) throws InterruptedException {
        Set<Thread> running = new HashSet<>(List.of(callers));
        while (!running.isEmpty()) {
            running.removeIf(caller -> caller.getState() == Thread.State.WAITING
                    || caller.getState() == Thread.State.TERMINATED); // a dead caller fails the trial later
            if (!running.isEmpty()) {
                Thread.sleep(1);
            }
        }
    }
}
