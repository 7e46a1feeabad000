package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.locks.LockRegistry;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.expression.EvaluationException;

/**
 * A key expression that parses and checks at startup but fails when a call evaluates it (issue 11, observation
 * 8): the error names the class, the method and the expression, keeps SpEL's error as its cause, and the
 * method does not run.
 */
class CallTimeExpressionErrorTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withBean(Orders.class);

    @Test
    void lockedKeyThatFailsToEvaluateShouldNameClassMethodAndExpression() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);

            assertThatIllegalArgumentException().isThrownBy(() -> orders.place(new Order(null)))
                    .withMessageContaining("Orders.place(Order)").withMessageContaining("'#order.customer.id'")
                    .withMessageContaining("@Locked").withCauseInstanceOf(EvaluationException.class);
            assertThat(orders.bodies()).isZero();
            assertThat(context.getBean(LockRegistry.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void fetchOrComputeKeyThatFailsToEvaluateShouldNameClassMethodAndExpression() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);

            assertThatIllegalArgumentException().isThrownBy(() -> orders.total(new Order(null)))
                    .withMessageContaining("Orders.total(Order)").withMessageContaining("'#order.customer.id'")
                    .withMessageContaining("@FetchOrCompute").withCauseInstanceOf(EvaluationException.class);
            assertThat(orders.bodies()).isZero();
        });
    }

    record Customer(String id) {
    }

    record Order(Customer customer) {
    }

    static class Orders {

        private final AtomicInteger bodies = new AtomicInteger();

        /** How many times a body ran (a method: the bean is a proxy, whose own fields are not the target's). */
        public int bodies() {
            return bodies.get();
        }

        @Locked(keys = "#order.customer.id")
        public void place(Order order) {
            bodies.incrementAndGet();
        }

        @FetchOrCompute(key = "#order.customer.id")
        public long total(Order order) {
            return bodies.incrementAndGet();
        }
    }
}
