package dev.locks.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.Mockito.mock;

import dev.locks.Computation;
import dev.locks.HeldLock;
import dev.locks.LockRegistry;
import dev.locks.spring.actuate.LocksEndpoint.HeldLockDescriptor;
import dev.locks.spring.actuate.LocksEndpoint.LocksDescriptor;
import java.security.Principal;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mockito.Answers;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;

/** The endpoint's operations, without HTTP: what they show, what they hide, what they release. */
class LocksEndpointTests {

    private static final Instant AT = Instant.parse("2025-01-02T03:04:05Z");

    private static final HeldLock ACCOUNT = new HeldLock("account:1", "thread main", 7, AT, AT.plusSeconds(30), false);

    private static final HeldLock PATH = new HeldLock("files:/a/b", "thread worker", 8, AT, Instant.MAX, true);

    private final StubLockRegistry registry = new StubLockRegistry().with(ACCOUNT).with(PATH);

    private final StubComputeCache cache = new StubComputeCache()
            .with(new Computation("quote:ACME", "thread q", 3, AT));

    @Test
    void heldLocksShouldBeListedWithBackendAndComputations() {
        LocksDescriptor locks = endpoint(Show.ALWAYS).locks(SecurityContext.NONE, null);

        assertThat(locks.backend()).isEqualTo("stub");
        assertThat(locks.locks()).extracting(HeldLockDescriptor::key).containsExactly("account:1", "files:/a/b");
        assertThat(locks.locks().get(0)).isEqualTo(
                new HeldLockDescriptor("account:1", "thread main", 7, AT, AT.plusSeconds(30), false));
        assertThat(locks.computations()).singleElement().satisfies(computation -> {
            assertThat(computation.key()).isEqualTo("quote:ACME");
            assertThat(computation.waiters()).isEqualTo(3);
        });
    }

    @Test
    void lockThatNeverExpiresShouldShowNoExpiry() {
        assertThat(endpoint(Show.ALWAYS).lock(SecurityContext.NONE, new String[] { "files:", "a", "b" }).expiresAt())
                .isNull();
    }

    @Test
    void keyWithSlashesShouldBeFoundFromItsPathSegments() {
        assertThat(endpoint(Show.ALWAYS).lock(SecurityContext.NONE, new String[] { "files:", "a", "b" }))
                .extracting(HeldLockDescriptor::fencingToken).isEqualTo(8L);
    }

    @Test
    void unknownKeyShouldGiveNull() {
        assertThat(endpoint(Show.ALWAYS).lock(SecurityContext.NONE, new String[] { "nope" })).isNull();
    }

    @Test
    void showKeysNeverShouldMaskEveryKey() {
        LocksEndpoint endpoint = endpoint(Show.NEVER);

        LocksDescriptor locks = endpoint.locks(user("ops", "ADMIN"), null);

        assertThat(locks.locks()).extracting(HeldLockDescriptor::key).containsOnly(LocksEndpoint.MASK);
        assertThat(locks.computations()).extracting(LocksEndpoint.ComputationDescriptor::key)
                .containsOnly(LocksEndpoint.MASK);
        // held or not, a hidden key looks up as not found (404), so the lookup tells nothing
        assertThat(endpoint.lock(SecurityContext.NONE, new String[] { "account:1" })).isNull();
        assertThat(endpoint.lock(user("ops", "ADMIN"), new String[] { "account:1" })).isNull();
        assertThat(endpoint.lock(SecurityContext.NONE, new String[] { "account:2" })).isNull();
    }

    @Test
    void listingShouldReadNoMoreThanItShows() {
        LockRegistry million = new StubLockRegistry() {
            @Override
            public List<HeldLock> heldLocks() {
                throw new AssertionError("the endpoint listed every lock");
            }

            @Override
            public List<HeldLock> heldLocks(int limit) {
                assertThat(limit).isEqualTo(3);
                return List.of(ACCOUNT, PATH, ACCOUNT);
            }
        };
        LocksEndpoint endpoint = new LocksEndpoint(million, null, Show.ALWAYS, List.of(), 2);

        LocksDescriptor locks = endpoint.locks(SecurityContext.NONE, null);

        assertThat(locks.locks()).hasSize(2);
        assertThat(locks.truncated()).isTrue();
    }

    @Test
    void negativeLimitShouldBeAnInvalidRequest() {
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint(Show.ALWAYS).locks(SecurityContext.NONE, -1));
    }

    @Test
    void showKeysWhenAuthorizedShouldHideKeysFromAnonymousCallers() {
        assertThat(endpoint(Show.WHEN_AUTHORIZED).locks(SecurityContext.NONE, null).locks())
                .extracting(HeldLockDescriptor::key).containsOnly(LocksEndpoint.MASK);
    }

    @Test
    void showKeysWhenAuthorizedShouldShowKeysToCallersInARole() {
        LocksEndpoint endpoint = new LocksEndpoint(registry, cache, Show.WHEN_AUTHORIZED, Set.of("OPS"));

        assertThat(endpoint.locks(user("ops", "OPS"), null).locks()).extracting(HeldLockDescriptor::key)
                .containsExactly("account:1", "files:/a/b");
        assertThat(endpoint.locks(user("dev", "DEV"), null).locks()).extracting(HeldLockDescriptor::key)
                .containsOnly(LocksEndpoint.MASK);
    }

    @Test
    void releaseShouldForceReleaseTheKey() {
        LocksEndpoint endpoint = endpoint(Show.ALWAYS);

        assertThat(endpoint.release(user("ops"), new String[] { "account:1" }).released()).isTrue();
        assertThat(registry.heldLock("account:1")).isEmpty();
        assertThat(endpoint.release(SecurityContext.NONE, new String[] { "account:1" }).released()).isFalse();
    }

    @Test
    void releaseOnRegistryWithoutForceReleaseShouldBeAnInvalidRequest() {
        LockRegistry contractOnly = mock(LockRegistry.class, Answers.CALLS_REAL_METHODS);
        LocksEndpoint endpoint = new LocksEndpoint(contractOnly, null, Show.ALWAYS, List.of());

        assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.release(SecurityContext.NONE, new String[] { "account:1" }));
    }

    @Test
    void noComputeCacheShouldListNoComputations() {
        LocksEndpoint endpoint = new LocksEndpoint(registry, null, Show.ALWAYS, List.of());

        assertThat(endpoint.locks(SecurityContext.NONE, null).computations()).isEmpty();
    }

    private LocksEndpoint endpoint(Show showKeys) {
        return new LocksEndpoint(registry, cache, showKeys, List.of());
    }

    private static SecurityContext user(String name, String... roles) {
        Principal principal = () -> name;
        Set<String> granted = Set.of(roles);
        return new SecurityContext() {
            @Override
            public Principal getPrincipal() {
                return principal;
            }

            @Override
            public boolean isUserInRole(String role) {
                return granted.contains(role);
            }
        };
    }
}
