package dev.locks.benchmarks.proto;

import dev.locks.Lease;
import dev.locks.local.LocalLockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link ProtoSingleKey}'s one-key cycles on the coarse and the precise clock, its floor and one
 * {@code System.nanoTime()}, measured interleaved for a machine whose load moves faster than a JMH benchmark's
 * iterations: each round times a slice of every variant in a shuffled order, so that a slice of one and a slice of
 * another see about the same load, and each variant's fastest slices and median are compared. Each variant has a
 * loop of its own (a call site that sees one receiver), as JMH would compile it. Not a JMH benchmark; run it after
 * {@code mvn -pl locks-benchmarks -am package}:
 *
 * <pre>{@code java -cp locks-benchmarks/target/benchmarks.jar dev.locks.benchmarks.proto.InterleavedClockCycle [rounds]}</pre>
 */
public final class InterleavedClockCycle {

    private static final String[] NAMES = {"engine, preciseClock(false)", "engine, precise clock (default)",
        "floor: putIfAbsent + remove", "System.nanoTime()"};
    private static final int SLICE = 20_000;

    private final List<String> keys = List.of("account:1000");
    private final ConcurrentHashMap<String, Thread> map = new ConcurrentHashMap<>();
    private final Thread self = Thread.currentThread();
    private final LocalLockRegistry coarse = LocalLockRegistry.builder().cleanupInterval(Duration.ZERO)
            .preciseClock(false).build();
    private final LocalLockRegistry precise =
            LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).preciseClock(true).build();
    private long sink;

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        InterleavedClockCycle cycle = new InterleavedClockCycle();
        for (int warm = 0; warm < 100; warm++) {
            for (int variant = 0; variant < NAMES.length; variant++) {
                cycle.slice(variant);
            }
        }
        double[][] nanos = new double[NAMES.length][rounds];
        List<Integer> order = new ArrayList<>(List.of(0, 1, 2, 3));
        for (int round = 0; round < rounds; round++) {
            Collections.shuffle(order);
            for (int variant : order) {
                nanos[variant][round] = cycle.slice(variant);
            }
        }
        cycle.coarse.close();
        cycle.precise.close();
        System.out.printf("%d rounds of %d cycles per variant, interleaved (sink %d)%n", rounds, SLICE, cycle.sink);
        System.out.printf("%-32s %8s %8s %8s %8s%n", "variant", "min", "p10", "median", "p90");
        for (int variant = 0; variant < NAMES.length; variant++) {
            double[] sorted = nanos[variant].clone();
            Arrays.sort(sorted);
            System.out.printf("%-32s %8.1f %8.1f %8.1f %8.1f%n", NAMES[variant], sorted[0],
                    sorted[rounds / 10], sorted[rounds / 2], sorted[rounds * 9 / 10]);
        }
    }

    /** Nanoseconds per cycle of one slice of {@code variant}. */
    private double slice(int variant) {
        long start = System.nanoTime();
        switch (variant) {
            case 0 -> {
                for (int i = 0; i < SLICE; i++) {
                    sink += cycle(coarse);
                }
            }
            case 1 -> {
                for (int i = 0; i < SLICE; i++) {
                    sink += cycle(precise);
                }
            }
            case 2 -> {
                for (int i = 0; i < SLICE; i++) {
                    map.putIfAbsent(keys.get(0), self);
                    sink += map.remove(keys.get(0), self) ? 1 : 0;
                }
            }
            default -> {
                for (int i = 0; i < SLICE; i++) {
                    sink += System.nanoTime();
                }
            }
        }
        return (System.nanoTime() - start) / (double) SLICE;
    }

    private long cycle(LocalLockRegistry registry) {
        try (Lease lease = registry.acquire(keys)) {
            return lease.fencingToken();
        }
    }
}
