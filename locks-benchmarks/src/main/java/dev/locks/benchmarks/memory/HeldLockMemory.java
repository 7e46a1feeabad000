package dev.locks.benchmarks.memory;

import dev.locks.Lease;
import dev.locks.benchmarks.local.Lock4jStyleLocal;
import dev.locks.benchmarks.report.ResultLine;
import dev.locks.local.LocalLockRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import org.openjdk.jol.info.GraphLayout;
import org.springframework.integration.support.locks.DefaultLockRegistry;

/**
 * Bytes per held lock with a million locks held by one thread, each on a key of its own: everything reachable
 * from the registry and from what the caller must keep to release (a {@code Lease}, a {@code Lock}), less what
 * was reachable before (the keys themselves are the caller's, and the holding thread exists anyway: neither is
 * counted). Measured with JOL's object
 * graph, by class, and checked against the heap in use after a full GC.
 *
 * <p>Arguments: {@code [locks]}, default 1,000,000. Run with a heap of a few GB ({@code -Xmx4g}).
 */
public final class HeldLockMemory {

    private HeldLockMemory() {
    }

    /** One implementation: takes a key, returns what must be kept to release it (or null). */
    private record Subject(String name, Object registry, Function<String, Object> take) {
    }

    public static void main(String[] args) {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int walked = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        String[] keys = new String[count];
        for (int i = 0; i < count; i++) {
            keys[i] = "account:" + i;
        }
        String[] walkedKeys = Arrays.copyOf(keys, walked);
        Footprint ofKeys = Footprint.of((Object) walkedKeys); // walked once: not reachable from an empty registry
        List<Supplier<Subject>> subjects = List.of(HeldLockMemory::thisProject,
                HeldLockMemory::springDefaultLockRegistry, HeldLockMemory::mapOfReentrantLocks, HeldLockMemory::lock4jLocal,
                HeldLockMemory::floorConcurrentHashMap);
        for (Supplier<Subject> subject : subjects) {
            Map<String, String> graph = walk(subject.get(), walkedKeys, ofKeys);
            measureHeap(subject.get(), keys, graph);
        }
    }

    private static Subject thisProject() {
        LocalLockRegistry registry = LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).build();
        return new Subject("thisProject", registry, key -> registry.acquire(List.of(key)));
    }

    private static Subject springDefaultLockRegistry() {
        DefaultLockRegistry registry = new DefaultLockRegistry();
        return new Subject("springDefaultLockRegistry", registry, key -> {
            Lock lock = registry.obtain(key);
            lock.lock();
            return lock;
        });
    }

    /** What one writes by hand: a lock per key, created on first use. */
    private static Subject mapOfReentrantLocks() {
        ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();
        return new Subject("mapOfReentrantLocks", locks, key -> {
            ReentrantLock lock = locks.computeIfAbsent(key, k -> new ReentrantLock());
            lock.lock();
            return lock;
        });
    }

    /** lock4j's local executor (its algorithm, {@link Lock4jStyleLocal}), with lock4j's default 30 s expiry. */
    private static Subject lock4jLocal() {
        Lock4jStyleLocal locks = new Lock4jStyleLocal();
        return new Subject("lock4jLocal", locks, key -> locks.acquire(key, 30_000, 3_000));
    }

    private static Subject floorConcurrentHashMap() {
        ConcurrentHashMap<String, Thread> map = new ConcurrentHashMap<>();
        return new Subject("floorConcurrentHashMap", map, key -> {
            map.putIfAbsent(key, Thread.currentThread());
            return null;
        });
    }

    /** Holds a lock on each key and returns what JOL found per lock: bytes, objects and classes. */
    private static Map<String, String> walk(Subject subject, String[] keys, Footprint ofKeys) {
        Object[] held = new Object[keys.length];
        // the holding thread is a root of both graphs: locks point to it, and through it to much of the JVM
        Thread self = Thread.currentThread();
        Footprint before = Footprint.of(subject.registry(), held, self).plus(ofKeys);
        hold(subject, keys, held);
        Footprint after = Footprint.of(subject.registry(), keys, held, self);
        release(subject, held);
        double n = keys.length;
        Map<String, String> found = new LinkedHashMap<>();
        found.put("jolBytesPerLock", format(Math.max(0, after.size() - before.size()) / n));
        found.put("jolObjectsPerLock", format(Math.max(0, after.count() - before.count()) / n));
        found.put("jolLocks", Integer.toString(keys.length));
        found.put("byClass", after.grownSince(before, n));
        return found;
    }

    /** Holds a lock on each key and prints the growth of the heap in use (after full GCs) per lock. */
    private static void measureHeap(Subject subject, String[] keys, Map<String, String> graph) {
        Object[] held = new Object[keys.length];
        long heapBefore = usedHeapAfterGc();
        hold(subject, keys, held);
        long heapAfter = usedHeapAfterGc();
        release(subject, held);
        double bytes = Math.max(0, heapAfter - heapBefore) / (double) keys.length;
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("locks", Integer.toString(keys.length));
        extra.putAll(graph);
        new ResultLine("memory", subject.name(), "B/lock", bytes, bytes, bytes, extra).print();
    }

    private static void hold(Subject subject, String[] keys, Object[] held) {
        for (int i = 0; i < keys.length; i++) {
            held[i] = subject.take().apply(keys[i]);
        }
    }

    private static void release(Subject subject, Object[] held) {
        if (subject.registry() instanceof AutoCloseable closeable) {
            for (Object lease : held) {
                ((Lease) lease).close();
            }
            try {
                closeable.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** What JOL found reachable, by class; kept small so that it can stay alive while the heap is measured. */
    private record Footprint(long size, long count, Map<Class<?>, long[]> byClass) {

        static Footprint of(Object... roots) {
            GraphLayout graph = GraphLayout.parseInstance(roots);
            Map<Class<?>, long[]> byClass = new HashMap<>();
            for (Class<?> type : graph.getClasses()) {
                byClass.put(type, new long[] {graph.getClassSizes().count(type), graph.getClassCounts().count(type)});
            }
            return new Footprint(graph.totalSize(), graph.totalCount(), byClass);
        }

        /** This footprint and a disjoint one. */
        Footprint plus(Footprint other) {
            Map<Class<?>, long[]> both = new HashMap<>(byClass);
            other.byClass.forEach((type, sizeAndCount) -> both.merge(type, sizeAndCount,
                    (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]}));
            return new Footprint(size + other.size, count + other.count, both);
        }

        /** The classes that grew by at least a byte per lock, as {@code Name:bytes/objects} per lock. */
        String grownSince(Footprint before, double n) {
            List<Map.Entry<String, long[]>> grown = new ArrayList<>();
            byClass.forEach((type, sizeAndCount) -> {
                long[] growth = minus(sizeAndCount, before.byClass.get(type));
                if (growth[0] >= n) { // at least a byte per lock
                    grown.add(Map.entry(name(type), growth));
                }
            });
            grown.sort(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[0]).reversed());
            List<String> parts = new ArrayList<>();
            for (Map.Entry<String, long[]> e : grown) {
                parts.add(e.getKey() + ":" + format(e.getValue()[0] / n) + "/" + format(e.getValue()[1] / n));
            }
            return parts.isEmpty() ? "none" : String.join("|", parts);
        }

        private static long[] minus(long[] after, long[] before) {
            return before == null ? after : new long[] {after[0] - before[0], after[1] - before[1]};
        }
    }

    private static String name(Class<?> type) {
        String name = type.getName();
        return type.isArray() ? type.getComponentType().getSimpleName() + "[]"
                : name.substring(name.lastIndexOf('.') + 1);
    }

    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }
}
