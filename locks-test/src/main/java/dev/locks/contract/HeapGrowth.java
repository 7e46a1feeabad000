package dev.locks.contract;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/** The heap a test leaves reachable: used heap after full collections (generous bounds only). */
public final class HeapGrowth {

    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private HeapGrowth() {
    }

    /** Bytes of heap in use after three full collections. */
    public static long usedAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, MEMORY.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** How much more heap is in use after {@code task} (after full collections) than before. */
    public static long of(Runnable task) throws InterruptedException {
        long before = usedAfterGc();
        task.run();
        return usedAfterGc() - before;
    }
}
