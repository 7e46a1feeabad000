package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.LockRegistry;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Money transfers between random pairs of accounts, in both directions, from 8 threads through
 * {@code @Locked(keys = {"'account:' + #from", "'account:' + #to"})}: no lost update, no two transfers on
 * one account at once, no deadlock, nothing left locked.
 */
class TransferContentionTests {

    private static final int THREADS = 8;

    private static final int TRANSFERS_PER_THREAD = 2_000;

    private static final int ACCOUNTS = 6;

    private static final long OPENING_BALANCE = 1_000;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withUserConfiguration(Config.class)
            .withPropertyValues("locks.retries=infinity", "locks.wait-time=20s");

    @Test
    void concurrentTransfersShouldConserveTheTotalAndLeaveNothingLocked() {
        runner.run(context -> {
            Bank bank = context.getBean(Bank.class);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Integer>> workers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    workers.add(pool.submit(() -> {
                        start.await();
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        for (int i = 0; i < TRANSFERS_PER_THREAD; i++) {
                            int from = random.nextInt(ACCOUNTS);
                            int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                            bank.transfer("acc" + from, "acc" + to, random.nextInt(1, 50));
                        }
                        return TRANSFERS_PER_THREAD;
                    }));
                }
                start.countDown();
                int done = 0;
                for (Future<Integer> worker : workers) {
                    done += worker.get(60, TimeUnit.SECONDS);
                }
                assertThat(done).isEqualTo(THREADS * TRANSFERS_PER_THREAD);
                assertThat(bank.total()).isEqualTo(ACCOUNTS * OPENING_BALANCE);
                assertThat(bank.overlaps()).isZero();
                assertThat(context.getBean(LockRegistry.class).heldLocks()).isEmpty();
            }
            finally {
                pool.shutdownNow();
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        Bank bank() {
            return new Bank();
        }
    }

    /** Balances updated by read-modify-write, safe only under the locks. */
    static class Bank {

        private final Map<String, Long> balances = new ConcurrentHashMap<>();

        private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();

        private final AtomicInteger overlaps = new AtomicInteger();

        Bank() {
            for (int i = 0; i < ACCOUNTS; i++) {
                balances.put("acc" + i, OPENING_BALANCE);
                inside.put("acc" + i, new AtomicInteger());
            }
        }

        @Locked(keys = {"'account:' + #from", "'account:' + #to"})
        public void transfer(String from, String to, long amount) {
            enter(from);
            enter(to);
            long fromBalance = balances.get(from);
            long toBalance = balances.get(to);
            Thread.yield();
            balances.put(from, fromBalance - amount);
            balances.put(to, toBalance + amount);
            inside.get(to).decrementAndGet();
            inside.get(from).decrementAndGet();
        }

        public long total() {
            return balances.values().stream().mapToLong(Long::longValue).sum();
        }

        public int overlaps() {
            return overlaps.get();
        }

        private void enter(String account) {
            if (inside.get(account).incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
        }
    }
}
