package dev.locks.benchmarks.waiters;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The most platform threads the JVM had while a crowd was served, sampled every 10 ms on a thread of its own from
 * when it is made until {@link #close()}; {@link #before()} is the count when it was made.
 */
final class PlatformThreads implements AutoCloseable {

    private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    private final int before = mx.getThreadCount();
    private final AtomicInteger most = new AtomicInteger(before);
    private final Thread sampler;
    private volatile boolean sampling = true;

    PlatformThreads() {
        sampler = new Thread(() -> {
            while (sampling) {
                most.accumulateAndGet(mx.getThreadCount(), Math::max);
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "crowd-sampler");
        sampler.start();
    }

    int before() {
        return before;
    }

    /** The most so far. */
    int most() {
        return most.get();
    }

    /** Stops sampling. */
    @Override
    public void close() throws InterruptedException {
        sampling = false;
        sampler.join();
    }
}
