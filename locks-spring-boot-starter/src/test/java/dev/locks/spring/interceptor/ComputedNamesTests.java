package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.locks.ComputeCache;
import dev.locks.annotation.EvictComputed;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.spring.LocksAutoConfiguration;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code @FetchOrCompute(name)} as the values' namespace, and {@code @EvictComputed} (SPEC 5). */
class ComputedNamesTests {

    private static final Duration TTL = Duration.ofMinutes(1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withBean(Accounts.class).withBean(Quotes.class).withBean(Shared.class);

    @Test
    void twoMethodsWithTheSameKeyExpressionAndNoNameShouldKeepSeparateValues() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            Quotes quotes = context.getBean(Quotes.class);

            assertThat(accounts.account("1")).isEqualTo(new Account("1"));
            assertThat(quotes.unnamed("1")).as("not the account stored under the same key expression")
                    .isEqualTo(new Quote("1"));
            assertThat(accounts.account("1")).isEqualTo(new Account("1"));
            assertThat(accounts.computed()).isEqualTo(1);
            assertThat(quotes.computed()).isEqualTo(1);
            ComputeCache cache = context.getBean(ComputeCache.class);
            assertThat(cache.fetchOrCompute(Accounts.class.getName() + ".account:1", TTL, () -> (Object) "not stored"))
                    .as("the default name is <fully qualified class name>.<method name>").isEqualTo(new Account("1"));
        });
    }

    @Test
    void methodsWithTheSameNameShouldShareValuesStoredUnderNameColonKey() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            Shared shared = context.getBean(Shared.class);

            assertThat(quotes.quote("ACME")).isEqualTo(new Quote("ACME"));
            assertThat(shared.sameQuote("ACME")).isEqualTo(new Quote("ACME"));

            assertThat(quotes.computed()).isEqualTo(1);
            assertThat(shared.computed()).isEqualTo(0);
            assertThat(context.getBean(ComputeCache.class).fetchOrCompute("quotes:ACME", TTL, () -> (Object) "not stored"))
                    .isEqualTo(new Quote("ACME"));
        });
    }

    @Test
    void evictComputedShouldInvalidateAfterANormalReturn() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            Shared shared = context.getBean(Shared.class);
            quotes.quote("ACME");

            shared.update("ACME");

            assertThat(quotes.quote("ACME")).isEqualTo(new Quote("ACME"));
            assertThat(quotes.computed()).as("computed again after the eviction").isEqualTo(2);
        });
    }

    @Test
    void evictComputedShouldEvictNothingWhenTheMethodThrows() {
        runner.run(context -> {
            Quotes quotes = context.getBean(Quotes.class);
            Shared shared = context.getBean(Shared.class);
            quotes.quote("ACME");

            assertThatIllegalStateException().isThrownBy(() -> shared.failedUpdate("ACME")).withMessage("rolled back");

            quotes.quote("ACME");
            assertThat(quotes.computed()).as("still the stored value").isEqualTo(1);
        });
    }

    @Test
    void operationsShouldKeepTheirName() {
        runner.run(context -> {
            FetchOrComputeOperationSource fetches = context.getBean(FetchOrComputeOperationSource.class);
            EvictComputedOperationSource evictions = context.getBean(EvictComputedOperationSource.class);

            assertThat(fetches.operation(Quotes.class.getMethod("quote", String.class), Quotes.class).name())
                    .isEqualTo("quotes");
            assertThat(fetches.operation(Accounts.class.getMethod("account", String.class), Accounts.class).name())
                    .isEqualTo(Accounts.class.getName() + ".account");
            assertThat(evictions.operation(Shared.class.getMethod("update", String.class), Shared.class).name())
                    .isEqualTo("quotes");
        });
    }

    record Account(String id) {
    }

    record Quote(String symbol) {
    }

    static class Accounts {

        private final AtomicInteger computed = new AtomicInteger();

        public int computed() {
            return computed.get();
        }

        @FetchOrCompute(key = "#id")
        public Account account(String id) {
            computed.incrementAndGet();
            return new Account(id);
        }
    }

    static class Quotes {

        private final AtomicInteger computed = new AtomicInteger();

        public int computed() {
            return computed.get();
        }

        @FetchOrCompute(key = "#id")
        public Quote unnamed(String id) {
            computed.incrementAndGet();
            return new Quote(id);
        }

        @FetchOrCompute(name = "quotes", key = "#symbol")
        public Quote quote(String symbol) {
            computed.incrementAndGet();
            return new Quote(symbol);
        }
    }

    static class Shared {

        private final AtomicInteger computed = new AtomicInteger();

        public int computed() {
            return computed.get();
        }

        @FetchOrCompute(name = "quotes", key = "#symbol")
        public Quote sameQuote(String symbol) {
            computed.incrementAndGet();
            return new Quote("other " + symbol);
        }

        @EvictComputed(name = "quotes", key = "#symbol")
        public void update(String symbol) {
        }

        @EvictComputed(name = "quotes", key = "#symbol")
        public void failedUpdate(String symbol) {
            throw new IllegalStateException("rolled back");
        }
    }
}
