package dev.locks.benchmarks.orders;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockTimeoutException;
import dev.locks.benchmarks.redis.RedisNodes;
import dev.locks.benchmarks.redis.RedisServerProcess;
import dev.locks.redis.RedisLockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

/**
 * Orders of one to three SKUs out of a few dozen, on Redis nodes (registries on their own connection factories,
 * against a {@code redis-server} of the workload's own): each thread takes the locks of an order's SKUs, works
 * briefly, releases, and starts the next order. Reported per order size: how many orders, the p50, p99 and
 * worst wait for the locks, and how many gave up after the wait time (SPEC "No starvation": a three-key
 * order must not be starved by the one-key orders on its SKUs).
 *
 * <p>Arguments: {@code [seconds] [nodes] [threads per node] [SKUs] [wait time in seconds] [work in ms]},
 * default 20, 2, 8, 36, 10, 1. Not a JMH benchmark: a workload that is run once and whose figures go into
 * {@code docs/benchmarks.md}.
 */
public final class MixedOrders {

    /** How a run is set up. */
    public record Settings(Duration duration, int nodes, int threadsPerNode, int skus, Duration waitTime,
            Duration work) {

        public static Settings fromArgs(String[] args) {
            return new Settings(Duration.ofSeconds(arg(args, 0, 20)), (int) arg(args, 1, 2), (int) arg(args, 2, 8),
                    (int) arg(args, 3, 36), Duration.ofSeconds(arg(args, 4, 10)), Duration.ofMillis(arg(args, 5, 1)));
        }

        private static long arg(String[] args, int index, long otherwise) {
            return args.length > index ? Long.parseLong(args[index]) : otherwise;
        }
    }

    /** The waits of the orders of one size, in nanoseconds, and how many timed out. */
    public static final class Size {
        private final List<Long> waits = new ArrayList<>();
        private int timeouts;

        synchronized void waited(long nanos) {
            waits.add(nanos);
        }

        synchronized void timedOut() {
            timeouts++;
        }

        public synchronized int orders() {
            return waits.size();
        }

        public synchronized int timeouts() {
            return timeouts;
        }

        /** The {@code p}-th percentile wait (0 < p <= 100), or zero without orders. */
        public synchronized Duration percentile(double p) {
            if (waits.isEmpty()) {
                return Duration.ZERO;
            }
            List<Long> sorted = waits.stream().sorted().toList();
            int index = (int) Math.ceil(p / 100 * sorted.size()) - 1;
            return Duration.ofNanos(sorted.get(Math.max(0, Math.min(index, sorted.size() - 1))));
        }
    }

    private MixedOrders() {
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.fromArgs(args);
        System.out.printf("mixed orders: %s, %d nodes x %d threads, %d SKUs, wait time %s, work %s%n",
                settings.duration(), settings.nodes(), settings.threadsPerNode(), settings.skus(),
                settings.waitTime(), settings.work());
        try (RedisServerProcess server = RedisServerProcess.start()) {
            List<Size> sizes = run(server.port(), settings);
            System.out.println("| keys per order | orders | p50 wait | p99 wait | worst wait | timeouts |");
            System.out.println("| --- | --- | --- | --- | --- | --- |");
            for (int i = 0; i < sizes.size(); i++) {
                Size size = sizes.get(i);
                System.out.printf(Locale.ROOT, "| %d | %d | %s | %s | %s | %d |%n", i + 1, size.orders(),
                        millis(size.percentile(50)), millis(size.percentile(99)), millis(size.percentile(100)),
                        size.timeouts());
            }
        }
    }

    /**
     * Runs the workload against the redis-server on {@code port}.
     *
     * @return per order size (one, two, three keys) its waits and timeouts
     */
    public static List<Size> run(int port, Settings settings) throws Exception {
        List<Size> sizes = List.of(new Size(), new Size(), new Size());
        ExecutorService threads = Executors.newFixedThreadPool(settings.nodes() * settings.threadsPerNode());
        try (RedisNodes redisNodes = new RedisNodes(port, settings.nodes())) {
            List<RedisLockRegistry> nodes = redisNodes.registries();
            AcquireOptions options = AcquireOptions.defaults().withInfiniteRetries()
                    .withWaitTime(settings.waitTime());
            long end = System.nanoTime() + settings.duration().toNanos();
            List<Future<?>> running = new ArrayList<>();
            for (RedisLockRegistry node : nodes) {
                for (int t = 0; t < settings.threadsPerNode(); t++) {
                    running.add(threads.submit(() -> orders(node, options, settings, sizes, end)));
                }
            }
            for (Future<?> thread : running) {
                thread.get(settings.duration().plus(settings.waitTime()).plusMinutes(1).toMillis(),
                        TimeUnit.MILLISECONDS);
            }
            return sizes;
        } finally {
            threads.shutdownNow();
        }
    }

    private static void orders(RedisLockRegistry node, AcquireOptions options, Settings settings, List<Size> sizes,
            long end) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (System.nanoTime() - end < 0) {
            int count = 1 + random.nextInt(3);
            List<String> skus = IntStream.generate(() -> random.nextInt(settings.skus())).distinct().limit(count)
                    .mapToObj(sku -> "sku:" + sku).toList();
            long start = System.nanoTime();
            try (Lease lease = node.acquire(skus, options)) {
                sizes.get(count - 1).waited(System.nanoTime() - start);
                LockSupport.parkNanos(settings.work().toNanos());
            } catch (LockTimeoutException e) {
                sizes.get(count - 1).timedOut();
            }
        }
    }

    private static String millis(Duration duration) {
        return String.format(Locale.ROOT, "%.1f ms", duration.toNanos() / 1e6);
    }
}
