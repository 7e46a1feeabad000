package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockTimeoutException;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.RecordingLockRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code @Locked} through the auto-configured interceptor and the real in-memory registry. */
class LockedInterceptorTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withUserConfiguration(Services.class)
            .withPropertyValues("locks.retries=0", "test.wait-time=150ms");

    private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopOtherThread() {
        otherThread.shutdownNow();
    }

    @Test
    void parametersByNameShouldBeTheKeysHeldWhileTheMethodRuns() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThat(accounts.transfer("b", "a", 10)).containsExactly("account:a", "account:b");
            assertThat(context.getBean(LockRegistry.class).heldLocks()).isEmpty();
        });
    }

    @Test
    void parametersByPositionShouldBeKeys() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThat(accounts.byPosition("x", "y")).containsExactly("x", "y");
        });
    }

    @Test
    void beanReferencesShouldBeResolved() {
        runner.run(context -> assertThat(context.getBean(Accounts.class).withBean("7")).containsExactly("tenant-1:7"));
    }

    @Test
    void rootShouldDescribeTheCall() {
        runner.run(context -> assertThat(context.getBean(Accounts.class).rooted("7"))
                .containsExactly("Accounts", "rooted:7"));
    }

    @Test
    void collectionsAndArraysShouldLockEachElement() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThat(accounts.each(List.of("c", "a", "b", "a"))).containsExactly("a", "b", "c");
            assertThat(accounts.eachOfArray(new String[] {"y", "x"})).containsExactly("x", "y");
            assertThat(accounts.eachOfPrimitives(new long[] {2, 1})).containsExactly("1", "2");
        });
    }

    @Test
    void noKeysShouldLockTheMethodByItsQualifiedName() {
        runner.run(context -> assertThat(context.getBean(Accounts.class).whole())
                .containsExactly(Accounts.class.getName() + ".whole"));
    }

    @Test
    void nullKeyShouldBeRejectedNamingTheMethodAndTheExpression() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThatIllegalArgumentException().isThrownBy(() -> accounts.byPosition(null, "y"))
                    .withMessageContaining("'#p0'")
                    .withMessageContaining("Accounts.byPosition(String, String)")
                    .withMessageContaining("is null");
            assertThatIllegalArgumentException().isThrownBy(() -> accounts.each(java.util.Arrays.asList("a", null)))
                    .withMessageContaining("'#ids'")
                    .withMessageContaining("null at position 1");
            assertThat(accounts.calls()).isZero();
        });
    }

    @Test
    void leaseCurrentShouldBeTheMethodsLeaseOnlyWhileItRuns() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            Lease inside = accounts.currentLease("k");
            assertThat(inside.keys()).containsExactly("k");
            assertThat(inside.fencingToken()).isPositive();
            assertThat(inside.isHeld()).isFalse();
            assertThat(Lease.current()).isEmpty();
        });
    }

    @Test
    void nestedCallsShouldSeeTheInnermostLeaseAndReenterHeldKeys() {
        runner.run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThat(accounts.outer("k")).containsExactly(List.of("k"), List.of("k", "other"), List.of("k"));
        });
    }

    @Test
    void timeoutShouldThrowAndNeverRunTheBody() {
        runner.run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            Lease held = otherThread.submit(() -> registry.acquire(List.of("account:a"))).get();
            Accounts accounts = context.getBean(Accounts.class);
            assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> accounts.transfer("a", "b", 1))
                    .satisfies(ex -> assertThat(ex.keys()).containsExactly("account:a", "account:b"));
            assertThat(accounts.calls()).isZero();
            held.close();
            assertThat(accounts.transfer("a", "b", 1)).hasSize(2);
            assertThat(accounts.calls()).isOne();
        });
    }

    @Test
    void annotationOptionsShouldApplyOverTheRegistryDefaults() {
        runner.withUserConfiguration(Recording.class).run(context -> {
            RecordingLockRegistry registry = context.getBean(RecordingLockRegistry.class);
            Accounts accounts = context.getBean(Accounts.class);
            accounts.tuned("k");
            accounts.transfer("a", "b", 1);
            AcquireOptions tuned = registry.options().get(0);
            assertThat(tuned.retries()).isEmpty();
            assertThat(tuned.retryInterval()).hasValue(Duration.ofSeconds(2));
            assertThat(tuned.lockTimeout()).isEmpty();
            assertThat(tuned.waitTime()).hasValue(Duration.ofMillis(150));
            assertThat(registry.options().get(1)).isSameAs(registry.defaultOptions());
        });
    }

    @Test
    void classWithoutInterfaceShouldBeProxiedWithCglib() {
        runner.run(context -> assertThat(AopUtils.isCglibProxy(context.getBean(Accounts.class))).isTrue());
    }

    @Test
    void interfaceProxiesShouldFindTheAnnotationOfTheImplementation() {
        runner.withPropertyValues("spring.aop.proxy-target-class=false").run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThat(AopUtils.isJdkDynamicProxy(ledger)).isTrue();
            assertThat(ledger.post("e1")).containsExactly("entry:e1");
            assertThat(ledger.close("2026")).containsExactly("period:2026");
        });
    }

    @Test
    void springBootAopConfigurationShouldNotChangeAnything() {
        runner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class)).run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThat(AopUtils.isCglibProxy(accounts)).isTrue();
            assertThat(accounts.transfer("b", "a", 10)).containsExactly("account:a", "account:b");
        });
    }

    @Test
    void annotationOnTheInterfaceShouldApplyToClassProxiesToo() {
        runner.run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThat(AopUtils.isCglibProxy(ledger)).isTrue();
            assertThat(ledger.close("2026")).containsExactly("period:2026");
        });
    }

    @Test
    void unannotatedMethodsShouldRunWithoutLocks() {
        runner.run(context -> assertThat(context.getBean(Accounts.class).unlocked()).isEmpty());
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {

        @Bean
        Accounts accounts(LockRegistry registry, Nested nested) {
            return new Accounts(registry, nested);
        }

        @Bean
        Nested nested() {
            return new Nested();
        }

        @Bean
        Tenant tenant() {
            return new Tenant();
        }

        @Bean
        Ledger ledger() {
            return new DefaultLedger();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Recording {

        @Bean
        RecordingLockRegistry recordingLockRegistry() {
            return new RecordingLockRegistry();
        }
    }

    /** A plain class, no interface: proxied with CGLIB. */
    static class Accounts {

        private final AtomicInteger calls = new AtomicInteger();

        private final LockRegistry registry;

        private final Nested nested;

        Accounts(LockRegistry registry, Nested nested) {
            this.registry = registry;
            this.nested = nested;
        }

        @Locked(keys = {"'account:' + #from", "'account:' + #to"})
        public List<String> transfer(String from, String to, long amount) {
            calls.incrementAndGet();
            return heldKeys();
        }

        @Locked(keys = {"#p0", "#a1"})
        public List<String> byPosition(String first, String second) {
            calls.incrementAndGet();
            return heldKeys();
        }

        @Locked(keys = "@tenant.prefix + ':' + #id")
        public List<String> withBean(String id) {
            return heldKeys();
        }

        @Locked(keys = {"#root.methodName + ':' + #root.args[0]", "#this.targetClass.simpleName"})
        public List<String> rooted(String id) {
            return heldKeys();
        }

        @Locked(keys = "#ids")
        public List<String> each(List<String> ids) {
            calls.incrementAndGet();
            return heldKeys();
        }

        @Locked(keys = "#ids")
        public List<String> eachOfArray(String[] ids) {
            return heldKeys();
        }

        @Locked(keys = "#ids")
        public List<String> eachOfPrimitives(long[] ids) {
            return heldKeys();
        }

        @Locked
        public List<String> whole() {
            return heldKeys();
        }

        @Locked(keys = "#key")
        public Lease currentLease(String key) {
            return Lease.current().orElseThrow();
        }

        @Locked(keys = "#key")
        public List<List<String>> outer(String key) {
            List<String> before = Lease.current().orElseThrow().keys();
            List<String> inner = nested.inner(key);
            return List.of(before, inner, Lease.current().orElseThrow().keys());
        }

        @Locked(keys = "#key", retries = "infinity", retryInterval = "PT2S", lockTimeout = "infinity",
                waitTime = "${test.wait-time}")
        public void tuned(String key) {
        }

        /** How many times a body ran (a method: fields of a CGLIB proxy are not the target's). */
        public int calls() {
            return calls.get();
        }

        public List<String> unlocked() {
            return heldKeys();
        }

        private List<String> heldKeys() {
            return registry.heldLocks().stream().map(lock -> lock.key()).sorted().toList();
        }
    }

    static class Nested {

        @Locked(keys = {"#key", "'other'"})
        public List<String> inner(String key) {
            return Lease.current().orElseThrow().keys();
        }
    }

    static class Tenant {

        public String getPrefix() {
            return "tenant-1";
        }
    }

    interface Ledger {

        List<String> post(String entry);

        @Locked(keys = "'period:' + #period")
        List<String> close(String period);
    }

    static class DefaultLedger implements Ledger {

        @Override
        @Locked(keys = "'entry:' + #entry")
        public List<String> post(String entry) {
            return Lease.current().orElseThrow().keys();
        }

        @Override
        public List<String> close(String period) {
            return Lease.current().orElseThrow().keys();
        }
    }
}
