package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.locks.annotation.Locked;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.mock.env.MockEnvironment;

/** Annotations are parsed once per class, when the class is first considered, and never on a call. */
class LockedOperationSourceTests {

    private final AtomicInteger parses = new AtomicInteger();

    private final LockedOperationSource source = new LockedOperationSource(new MockEnvironment(),
            new DefaultListableBeanFactory()) {

        @Override
        protected LockedOperation parse(Locked locked, Method method, Class<?> targetClass) {
            parses.incrementAndGet();
            return super.parse(locked, method, targetClass);
        }
    };

    @Test
    void everyAnnotatedMethodShouldBeParsedOnceWhenTheClassIsFirstConsidered() throws Exception {
        assertThat(source.hasOperations(Service.class)).isTrue();
        assertThat(parses).hasValue(2);
        Method pay = Service.class.getMethod("pay", String.class);
        LockedOperation first = source.operation(pay, Service.class);
        for (int i = 0; i < 1_000; i++) {
            assertThat(source.operation(pay, Service.class)).isSameAs(first);
        }
        assertThat(source.hasOperations(Service.class)).isTrue();
        assertThat(parses).hasValue(2);
    }

    @Test
    void interfaceMethodShouldResolveToTheImplementationsOperation() throws Exception {
        source.hasOperations(Service.class);
        LockedOperation viaInterface = source.operation(Api.class.getMethod("pay", String.class), Service.class);
        assertThat(viaInterface).isSameAs(source.operation(Service.class.getMethod("pay", String.class), Service.class));
        assertThat(parses).hasValue(2);
    }

    @Test
    void classWithoutAnnotationsShouldNeedNoProxy() throws Exception {
        assertThat(source.hasOperations(String.class)).isFalse();
        assertThat(source.hasOperations(Plain.class)).isFalse();
        assertThat(source.operation(Plain.class.getMethod("run"), Plain.class)).isNull();
        assertThat(parses).hasValue(0);
    }

    @Test
    void invalidAnnotationShouldFailWhenTheClassIsConsidered() {
        assertThatExceptionOfType(InvalidLocksAnnotationException.class)
                .isThrownBy(() -> source.hasOperations(Broken.class))
                .satisfies(ex -> {
                    assertThat(ex.targetClass()).isEqualTo(Broken.class);
                    assertThat(ex.method().getName()).isEqualTo("run");
                    assertThat(ex.attribute()).isEqualTo("keys");
                    assertThat(ex.value()).isEqualTo("#missing");
                })
                .withMessageContaining("Invalid @Locked on LockedOperationSourceTests.Broken.run(String), keys '#missing'");
    }

    interface Api {

        void pay(String account);
    }

    static class Service implements Api {

        @Override
        @Locked(keys = "#account")
        public void pay(String account) {
        }

        @Locked
        public void close() {
        }

        public void unlocked() {
        }
    }

    static class Plain {

        public void run() {
        }
    }

    static class Broken {

        @Locked(keys = "#missing")
        public void run(String id) {
        }
    }
}
