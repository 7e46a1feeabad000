package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.withSettings;

import dev.locks.LockRegistry;
import dev.locks.local.LocalLockRegistry;
import dev.locks.support.NonBlockingRelease;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

/**
 * Where {@code @Locked} on a {@code Mono} or {@code Flux} releases its lease (issue 26): a registry that says its
 * release does not block ({@link NonBlockingRelease}, as the in-memory one does) has it released where the
 * publisher ends, any other on the bounded-elastic scheduler.
 */
class ReactiveReleaseSchedulerTests {

    @Test
    void theInMemoryRegistryShouldBeReleasedWhereThePublisherEnds() {
        try (LocalLockRegistry locks = LocalLockRegistry.builder().cleanupInterval(Duration.ZERO).build()) {
            assertThat(ReactiveLockedCalls.releaseScheduler(locks)).isNull();
        }
    }

    @Test
    void anyRegistryWithANonBlockingReleaseShouldBeReleasedWhereThePublisherEnds() {
        LockRegistry own = mock(LockRegistry.class, withSettings().extraInterfaces(NonBlockingRelease.class));

        assertThat(ReactiveLockedCalls.releaseScheduler(own)).isNull();
    }

    @Test
    void anotherRegistryShouldBeReleasedOnTheBoundedElasticScheduler() {
        assertThat(ReactiveLockedCalls.releaseScheduler(mock(LockRegistry.class)))
                .isSameAs(Schedulers.boundedElastic());
    }
}
