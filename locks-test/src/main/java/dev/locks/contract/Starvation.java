package dev.locks.contract;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The starvation scenario of SPEC "No starvation": streams of one-key callers hammer the keys {@code a},
 * {@code b} and {@code c} (each re-acquires at once after a short hold), while one caller needs all three.
 * Without fairness the three keys are practically never free at the same moment, and the three-key caller
 * waits until its wait time runs out.
 */
public final class Starvation {

    public static final List<String> KEYS = List.of("a", "b", "c");

    private static final AcquireOptions STREAM = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofMillis(1)).withLockTimeout(Duration.ofSeconds(60));

    private Starvation() {
    }

    /** Holds the CPU for {@code time}: a holder that works rather than sleeps, as in a real critical section. */
    private static void hold(Duration time) {
        long end = System.nanoTime() + time.toNanos();
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    /**
     * Starts {@code perNode} one-key callers on each node (the keys round-robin), waits until they have taken
     * keys for a while, then takes all three keys on the first node with {@code waitTime}, and stops them.
     *
     * @return how long the three-key caller waited; a {@link dev.locks.LockTimeoutException} when it starved
     */
    public static Duration threeKeyWaiterAgainstStreams(Threads threads, List<? extends LockRegistry> nodes,
            int perNode, Duration holdTime, Duration waitTime) throws Exception {
        return threeKeyWaiterAgainstStreams(threads, nodes, perNode, holdTime,
                (node, options) -> node.acquire(KEYS, options.withWaitTime(waitTime)));
    }

    /**
     * As {@link #threeKeyWaiterAgainstStreams(Threads, List, int, Duration, Duration)}, the three keys taken by
     * {@code waiter} (on the first node, with options of infinite retries every 10 ms, to which it adds its wait
     * time): a blocking acquire, or an asynchronous one awaited.
     */
    public static Duration threeKeyWaiterAgainstStreams(Threads threads, List<? extends LockRegistry> nodes,
            int perNode, Duration holdTime, ThreeKeyWaiter waiter) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger taken = new AtomicInteger();
        CountDownLatch warm = new CountDownLatch(50 * nodes.size() * perNode);
        List<Future<Object>> streams = new ArrayList<>();
        int n = 0;
        for (LockRegistry node : nodes) {
            for (int i = 0; i < perNode; i++) {
                String key = KEYS.get(n++ % KEYS.size());
                streams.add(threads.start(() -> {
                    while (!stop.get()) {
                        try (Lease lease = node.acquire(List.of(key), STREAM.withWaitTime(Threads.BOUND))) {
                            hold(holdTime);
                        }
                        taken.incrementAndGet();
                        warm.countDown();
                    }
                    return null;
                }));
            }
        }
        try {
            if (!warm.await(Threads.BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the one-key callers took only " + taken.get() + " locks");
            }
            long start = System.nanoTime();
            try (Lease all = waiter.take(nodes.get(0), AcquireOptions.defaults().withInfiniteRetries()
                    .withRetryInterval(Duration.ofMillis(10)))) {
                if (!all.isHeld()) {
                    throw new AssertionError("the three-key lease is not held");
                }
                return Duration.ofNanos(System.nanoTime() - start);
            }
        } finally {
            stop.set(true);
            for (Future<Object> stream : streams) {
                Threads.get(stream);
            }
        }
    }

    /** How the three-key caller takes {@link #KEYS}. */
    @FunctionalInterface
    public interface ThreeKeyWaiter {
        Lease take(LockRegistry node, AcquireOptions options) throws Exception;
    }
}
