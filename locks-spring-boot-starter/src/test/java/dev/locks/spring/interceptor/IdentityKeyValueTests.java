package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.locks.LockRegistry;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A key value whose class does not override {@code Object.toString()} is refused, naming the class, the
 * method and the expression (SPEC section 2; issue 9, observation 8): its identity string differs for equal
 * objects, so two calls for the same account would not exclude each other.
 */
class IdentityKeyValueTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withUserConfiguration(Services.class);

    @Test
    void identityStringKeyShouldBeRejectedNamingClassMethodAndExpression() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThatIllegalArgumentException().isThrownBy(() -> accounts.debit(new Account("a-1")))
                    .withMessageContaining(Account.class.getName())
                    .withMessageContaining("Accounts.debit(Account)")
                    .withMessageContaining("'#account'")
                    .withMessageContaining("does not override Object.toString()");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> accounts.debitAll(List.of(new Account("a-1"), new Account("a-2"))))
                    .withMessageContaining("'#accounts'").withMessageContaining("at position 0")
                    .withMessageContaining(Account.class.getName());
            assertThatIllegalArgumentException().isThrownBy(() -> accounts.balance(new Account("a-1")))
                    .withMessageContaining("@FetchOrCompute key expression '#account'")
                    .withMessageContaining("Accounts.balance(Account)")
                    .withMessageContaining(Account.class.getName());
            assertThat(accounts.calls()).isEqualTo(0);
            assertThat(context.getBean(LockRegistry.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void valuesWithAToStringOfTheirOwnShouldBeKeys() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThat(accounts.debitNamed(new Named("a-1"))).isEqualTo("ok");
            assertThat(accounts.debitId(new Account("a-1"))).isEqualTo("ok");
            assertThat(accounts.calls()).isEqualTo(2);
        });
    }

    /** No toString() of its own: Object's identity string. */
    static final class Account {
        final String id;

        Account(String id) {
            this.id = id;
        }

        public String getId() {
            return id;
        }
    }

    /** A record's toString() is its components. */
    record Named(String id) {
    }

    static class Accounts {
        private final AtomicInteger calls = new AtomicInteger();

        public int calls() {
            return calls.get();
        }

        @Locked(keys = "#account")
        public String debit(Account account) {
            calls.incrementAndGet();
            return "ok";
        }

        @Locked(keys = "#accounts")
        public String debitAll(List<Account> accounts) {
            calls.incrementAndGet();
            return "ok";
        }

        @FetchOrCompute(key = "#account")
        public String balance(Account account) {
            calls.incrementAndGet();
            return "0";
        }

        @Locked(keys = "#account")
        public String debitNamed(Named account) {
            calls.incrementAndGet();
            return "ok";
        }

        @Locked(keys = "#account.id")
        public String debitId(Account account) {
            calls.incrementAndGet();
            return "ok";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {
        @Bean
        Accounts accounts() {
            return new Accounts();
        }
    }
}
