package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.HeldLock;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.spring.LocksAutoConfiguration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** When the {@code locks} endpoint is there, and when it is not. */
class LocksEndpointAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksEndpointAutoConfiguration.class))
            .withBean(LockRegistry.class, StubLockRegistry::new);

    @Test
    void exposedEndpointShouldBeAutoConfigured() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=locks")
                .run(context -> assertThat(context).hasSingleBean(LocksEndpoint.class));
    }

    @Test
    void realRegistryShouldBeShownByTheEndpoint() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class,
                        LocksEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=locks")
                .run(context -> {
                    try (Lease lease = context.getBean(LockRegistry.class).acquire(List.of("account:1"))) {
                        LocksEndpoint.LocksDescriptor locks = context.getBean(LocksEndpoint.class)
                                .locks(SecurityContext.NONE, null);
                        assertThat(locks.backend()).isEqualTo("local");
                        assertThat(locks.locks()).extracting(LocksEndpoint.HeldLockDescriptor::fencingToken)
                                .containsExactly(lease.fencingToken());
                    }
                });
    }

    @Test
    void maxListedShouldBoundTheListingOfTheRealRegistry() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class,
                        LocksEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=locks", "locks.endpoint.max-listed=3")
                .run(context -> {
                    List<String> keys = java.util.stream.IntStream.range(0, 10).mapToObj(i -> "k" + i).toList();
                    try (Lease lease = context.getBean(LockRegistry.class).acquire(keys)) {
                        LocksEndpoint.LocksDescriptor locks = context.getBean(LocksEndpoint.class)
                                .locks(SecurityContext.NONE, null);
                        assertThat(locks.locks()).hasSize(3);
                        assertThat(locks.truncated()).isTrue();
                        assertThat(context.getBean(LocksEndpoint.class).locks(SecurityContext.NONE, 20).locks())
                                .hasSize(3);
                    }
                });
    }

    @Test
    void maxListedBelowOneShouldStopStartupNamingTheProperty() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class,
                        LocksEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=locks", "locks.endpoint.max-listed=0")
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .rootCause().hasMessageContaining("locks.endpoint.max-listed"));
    }

    @Test
    void locksDisabledWithTheRealCoreShouldLeaveNoEndpoint() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class,
                        LocksEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=locks", "locks.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class)
                        .doesNotHaveBean(LocksEndpoint.class));
    }

    @Test
    void endpointExposedOverJmxOnlyShouldBeAutoConfigured() {
        runner.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=locks")
                .run(context -> assertThat(context).hasSingleBean(LocksEndpoint.class));
    }

    @Test
    void endpointNotExposedShouldBeAbsent() {
        runner.run(context -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
    }

    @Test
    void accessNoneShouldRemoveTheEndpoint() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=locks",
                "management.endpoint.locks.access=NONE")
                .run(context -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
    }

    @Test
    void locksDisabledShouldRemoveTheEndpoint() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=locks", "locks.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
    }

    @Test
    void actuatorAbsentShouldRemoveTheEndpoint() {
        runner.withClassLoader(new FilteredClassLoader(Endpoint.class))
                .withPropertyValues("management.endpoints.web.exposure.include=locks")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksEndpoint.class));
    }

    @Test
    void noLockRegistryShouldRemoveTheEndpoint() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=locks")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksEndpoint.class));
    }

    @Test
    void userEndpointShouldWin() {
        LocksEndpoint mine = new LocksEndpoint(new StubLockRegistry(), null, Show.NEVER, List.of());
        runner.withPropertyValues("management.endpoints.web.exposure.include=locks")
                .withBean("myLocksEndpoint", LocksEndpoint.class, () -> mine)
                .run(context -> assertThat(context).getBean(LocksEndpoint.class).isSameAs(mine));
    }

    @Test
    void showKeysPropertyShouldReachTheEndpoint() {
        StubLockRegistry registry = new StubLockRegistry()
                .with(new HeldLock("account:1", "main", 1, Instant.EPOCH, Instant.MAX, false));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksEndpointAutoConfiguration.class))
                .withBean(LockRegistry.class, () -> registry)
                .withPropertyValues("management.endpoints.web.exposure.include=locks", "locks.endpoint.show-keys=never")
                .run(context -> assertThat(context.getBean(LocksEndpoint.class).locks(SecurityContext.NONE, null).locks())
                        .extracting(LocksEndpoint.HeldLockDescriptor::key).containsOnly(LocksEndpoint.MASK));
    }

    @Test
    void rolesPropertyShouldNarrowWhenAuthorized() {
        StubLockRegistry registry = new StubLockRegistry()
                .with(new HeldLock("account:1", "main", 1, Instant.EPOCH, Instant.MAX, false));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LocksEndpointAutoConfiguration.class))
                .withBean(LockRegistry.class, () -> registry)
                .withPropertyValues("management.endpoints.web.exposure.include=locks",
                        "locks.endpoint.show-keys=when-authorized", "locks.endpoint.roles=OPS")
                .run(context -> {
                    LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
                    assertThat(endpoint.locks(caller("OPS"), null).locks()).extracting(LocksEndpoint.HeldLockDescriptor::key)
                            .containsOnly("account:1");
                    assertThat(endpoint.locks(caller("DEV"), null).locks()).extracting(LocksEndpoint.HeldLockDescriptor::key)
                            .containsOnly(LocksEndpoint.MASK);
                });
    }

    private static SecurityContext caller(String role) {
        return new SecurityContext() {
            @Override
            public java.security.Principal getPrincipal() {
                return () -> "someone";
            }

            @Override
            public boolean isUserInRole(String asked) {
                return role.equals(asked);
            }
        };
    }
}
