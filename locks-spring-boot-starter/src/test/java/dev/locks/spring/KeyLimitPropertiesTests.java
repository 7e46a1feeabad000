package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.locks.LockRegistry;
import java.util.List;
import java.util.stream.IntStream;
import dev.locks.redis.test.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code locks.max-keys} and {@code locks.max-key-length}: defaults, wiring into the registry, validation. */
class KeyLimitPropertiesTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class));

    @Test
    void defaultsShouldBeThoseOfTheContract() {
        runner.run(context -> {
            LocksProperties properties = context.getBean(LocksProperties.class);
            assertThat(properties.getMaxKeys()).isEqualTo(1000);
            assertThat(properties.getMaxKeyLength()).isEqualTo(1024);
            LockRegistry registry = context.getBean(LockRegistry.class);
            List<String> tooMany = IntStream.range(0, 1001).mapToObj(i -> "k" + i).toList();
            assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire(tooMany))
                    .withMessageContaining("locks.max-keys");
        });
    }

    @Test
    void limitsShouldReachTheRegistry() {
        runner.withPropertyValues("locks.max-keys=2", "locks.max-key-length=4").run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire(List.of("a", "b", "c")))
                    .withMessageContaining("at most 2 distinct keys (locks.max-keys)");
            assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire(List.of("a", "abcde")))
                    .withMessageContaining("key at position 1").withMessageContaining("locks.max-key-length (4)");
            registry.acquire(List.of("abcd", "a")).close();
        });
    }

    @Test
    void limitsShouldReachTheRedisRegistryToo() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, LocksAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.timeout=500ms", "locks.max-keys=2", "locks.max-key-length=4")
                .run(context -> {
                    LockRegistry registry = context.getBean(LockRegistry.class);
                    assertThat(registry.backend()).isEqualTo("redis");
                    assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire(List.of("a", "b", "c")))
                            .withMessageContaining("locks.max-keys");
                    assertThatIllegalArgumentException().isThrownBy(() -> registry.acquire(List.of("abcde")))
                            .withMessageContaining("locks.max-key-length (4)");
                    registry.acquire(List.of("abcd", "a")).close();
                });
    }

    @Test
    void nonPositiveLimitsShouldStopStartupNamingTheProperty() {
        for (String property : List.of("locks.max-keys", "locks.max-key-length")) {
            runner.withPropertyValues(property + "=0").run(context -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining(property).hasMessageContaining("Must be at least 1");
            });
        }
    }
}
