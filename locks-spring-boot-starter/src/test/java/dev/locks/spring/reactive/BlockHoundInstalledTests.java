package dev.locks.spring.reactive;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.locks.Lease;
import dev.locks.local.LocalLockRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * That BlockHound watches the tests of this package (its JUnit platform listener, on the 'reactive' run's
 * classpath only), so that their passing means something: a blocking call on a non-blocking thread fails, and so
 * does the engine's wait for a held key, which is why the reactive interceptor waits on a scheduler of its own.
 */
class BlockHoundInstalledTests {

    @Test
    void sleepOnAParallelThreadShouldFail() {
        Mono<String> sleeping = Mono.fromCallable(() -> {
            Thread.sleep(1);
            return "slept";
        }).subscribeOn(Schedulers.parallel());

        assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> sleeping.block(Duration.ofSeconds(30)))
                .havingRootCause().isInstanceOf(BlockingOperationError.class);
    }

    @Test
    void waitForAHeldKeyOnAParallelThreadShouldFail() {
        LocalLockRegistry registry = new LocalLockRegistry();
        try (Lease holder = registry.acquire(List.of("k"))) {
            Mono<Lease> waiting = Mono.fromCallable(() -> registry.acquire(List.of("k")))
                    .subscribeOn(Schedulers.parallel());

            assertThatExceptionOfType(RuntimeException.class)
                    .isThrownBy(() -> waiting.block(Duration.ofSeconds(30)))
                    .havingRootCause().isInstanceOf(BlockingOperationError.class);
        }
    }
}
