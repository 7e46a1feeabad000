package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@code @Locked} wraps {@code @Transactional} (embedded H2, Spring Boot's JDBC and transaction
 * auto-configuration): the lock is taken before the transaction begins and released after it commits or
 * rolls back, unless {@code locks.aspect-order} puts it inside.
 */
class LockedTransactionTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class, DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
                    TransactionAutoConfiguration.class))
            .withPropertyValues("spring.datasource.generate-unique-name=true")
            .withUserConfiguration(Config.class);

    @Test
    void lockShouldStillBeHeldWhenTheTransactionCommits() {
        runner.run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            ledger.credit("a", 10);
            assertThat(ledger.seen()).containsEntry("transaction active in body", true)
                    .containsEntry("lock held before commit", true)
                    .containsEntry("lease current before commit", true)
                    .containsEntry("lock held after completion", true)
                    .containsEntry("committed", true);
            assertThat(context.getBean(LockRegistry.class).heldLocks()).isEmpty();
            assertThat(context.getBean(JdbcTemplate.class).queryForObject(
                    "select amount from entries where account = 'a'", Long.class)).isEqualTo(10);
        });
    }

    @Test
    void lockShouldStillBeHeldWhenTheTransactionRollsBack() {
        runner.run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThatIllegalStateException().isThrownBy(() -> ledger.creditThenFail("a", 10));
            assertThat(ledger.seen()).containsEntry("lock held after completion", true)
                    .containsEntry("committed", false);
            assertThat(context.getBean(LockRegistry.class).heldLocks()).isEmpty();
            assertThat(context.getBean(JdbcTemplate.class).queryForObject("select count(*) from entries", Long.class))
                    .isZero();
        });
    }

    @Test
    void aspectOrderShouldMoveTheLockInsideTheTransaction() {
        runner.withUserConfiguration(OuterTransactions.class).withPropertyValues("locks.aspect-order=200")
                .run(context -> {
                    Ledger ledger = context.getBean(Ledger.class);
                    ledger.credit("a", 10);
                    assertThat(ledger.seen()).containsEntry("transaction active in body", true)
                            .containsEntry("lock held before commit", false)
                            .containsEntry("lock held after completion", false);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        Ledger ledger(JdbcTemplate jdbc, LockRegistry registry) {
            jdbc.execute("create table entries (account varchar(20), amount bigint)");
            return new Ledger(jdbc, registry);
        }
    }

    /** The application's own transaction management, ordered before ours. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 100)
    static class OuterTransactions {
    }

    static class Ledger {

        private final JdbcTemplate jdbc;

        private final LockRegistry registry;

        private final Map<String, Boolean> seen = new ConcurrentHashMap<>();

        Ledger(JdbcTemplate jdbc, LockRegistry registry) {
            this.jdbc = jdbc;
            this.registry = registry;
        }

        @Locked(keys = "'account:' + #account")
        @Transactional
        public void credit(String account, long amount) {
            insert(account, amount);
        }

        @Locked(keys = "'account:' + #account")
        @Transactional
        public void creditThenFail(String account, long amount) {
            insert(account, amount);
            throw new IllegalStateException("rolled back");
        }

        public Map<String, Boolean> seen() {
            return seen;
        }

        private void insert(String account, long amount) {
            seen.clear();
            seen.put("transaction active in body", TransactionSynchronizationManager.isActualTransactionActive());
            jdbc.update("insert into entries values (?, ?)", account, amount);
            String key = "account:" + account;
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

                @Override
                public void beforeCommit(boolean readOnly) {
                    seen.put("lock held before commit", registry.heldLock(key).isPresent());
                    seen.put("lease current before commit",
                            Lease.current().map(lease -> lease.keys().equals(List.of(key))).orElse(false));
                }

                @Override
                public void afterCompletion(int status) {
                    seen.put("lock held after completion", registry.heldLock(key).isPresent());
                    seen.put("committed", status == STATUS_COMMITTED);
                }
            });
        }
    }
}
