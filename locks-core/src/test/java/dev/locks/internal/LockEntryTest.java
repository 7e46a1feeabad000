package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The hold count and the detached and lost marks share one word: neither disturbs the other. */
class LockEntryTest {

    private static LockEntry entry() {
        return new LockEntry("k", Thread.currentThread(), null, 0, Long.MAX_VALUE);
    }

    @Test
    void marksShouldLeaveTheHoldCountAlone() {
        LockEntry entry = entry();
        assertThat(entry.tryReenter()).isTrue();
        entry.markDetached();
        entry.markLost();
        assertThat(entry.isDetached()).isTrue();
        assertThat(entry.isLost()).isTrue();
        assertThat(entry.isOwnedBy(Thread.currentThread())).as("detached: no re-entry").isFalse();
        assertThat(entry.isReleasing()).isFalse();
        assertThat(entry.dropHold()).isEqualTo(1);
        assertThat(entry.dropHold()).isZero();
        assertThat(entry.isReleasing()).isTrue();
        assertThat(entry.isLost()).isTrue();
        assertThat(entry.isDetached()).isTrue();
        assertThat(entry.tryReenter()).as("the last hold is gone").isFalse();
    }

    @Test
    void closeSelfShouldDropOneHoldOnceAndKeepTheMarks() {
        LockEntry entry = entry();
        assertThat(entry.tryReenter()).isTrue();
        entry.markLost();
        assertThat(entry.closeSelf()).isEqualTo(1);
        assertThat(entry.closeSelf()).as("closed already").isEqualTo(-1);
        assertThat(entry.isSelfClosed()).isTrue();
        assertThat(entry.isLost()).isTrue();
        assertThat(entry.isDetached()).isFalse();
        assertThat(entry.dropHold()).isZero();
    }

    @Test
    void marksSetWhileOtherThreadsCountHoldsShouldNeitherBeLostNorLoseAHold() throws Exception {
        for (int round = 0; round < 200; round++) {
            LockEntry entry = entry();
            int threads = 4;
            int each = 1_000;
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> counting = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread thread = new Thread(() -> {
                    await(start);
                    for (int i = 0; i < each; i++) {
                        entry.tryReenter();
                    }
                });
                thread.start();
                counting.add(thread);
            }
            start.countDown();
            entry.markLost();
            entry.markDetached();
            for (Thread thread : counting) {
                thread.join();
            }
            assertThat(entry.isLost()).isTrue();
            assertThat(entry.isDetached()).isTrue();
            int left = 0;
            for (int i = 0; i < threads * each; i++) {
                left = entry.dropHold();
            }
            assertThat(left).as("every re-entry counted, the first hold left").isEqualTo(1);
            assertThat(entry.dropHold()).isZero();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
