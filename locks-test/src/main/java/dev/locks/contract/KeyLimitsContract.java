package dev.locks.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SPEC section 2, "Limits", on every backend (issue 9, observation 8): too many keys, too long a key, or a
 * key that is not well-formed UTF-16 is an {@link IllegalArgumentException} before anything is locked, with a
 * short message naming the position or the property; the registry's builder sets both limits.
 */
public abstract class KeyLimitsContract {

    private final List<LockRegistry> made = new ArrayList<>();

    /** A registry of the backend under test with these limits. */
    protected abstract LockRegistry newRegistry(int maxKeys, int maxKeyLength);

    /** Building a registry with these limits, for the builder's checks. */
    protected abstract void build(int maxKeys, int maxKeyLength);

    private LockRegistry registry(int maxKeys, int maxKeyLength) {
        LockRegistry registry = newRegistry(maxKeys, maxKeyLength);
        made.add(registry);
        return registry;
    }

    @AfterEach
    void closeRegistries() throws Exception {
        for (LockRegistry registry : made) {
            if (registry instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
    }

    @Test
    void requestOfTooManyKeysShouldFailFastWithAShortMessageLockingNothing() {
        LockRegistry registry = registry(1000, 1024);
        List<String> many = IntStream.range(0, 100_000).mapToObj(i -> "sku-" + i).toList();

        assertThatThrownBy(() -> registry.acquire(many)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 1000 distinct keys (locks.max-keys)")
                .hasMessageContaining("and 99990 more").message().hasSizeLessThan(500);
        assertThatThrownBy(() -> registry.tryAcquire(many)).isInstanceOf(IllegalArgumentException.class);
        assertThat(registry.heldLocks()).isEmpty();
        List<String> thousand = IntStream.range(0, 1000).mapToObj(i -> "sku-" + i).toList();
        try (Lease lease = registry.acquire(thousand)) {
            assertThat(lease.keys()).hasSize(1000);
        }
    }

    @Test
    void limitsShouldBeTheBuildersOwn() {
        LockRegistry registry = registry(3, 8);

        assertThatThrownBy(() -> registry.acquire(List.of("a", "b", "c", "d")))
                .hasMessageContaining("at most 3 distinct keys");
        assertThatThrownBy(() -> registry.acquire(List.of("a", "123456789")))
                .hasMessageContaining("key at position 1 is 9 characters long")
                .hasMessageContaining("locks.max-key-length (8)");
        assertThatThrownBy(() -> registry.tryAcquire(List.of("123456789")))
                .hasMessageContaining("key at position 0 is 9 characters long");
        assertThat(registry.heldLocks()).isEmpty();
        try (Lease lease = registry.acquire(List.of("a", "b", "a", "12345678", "b"))) {
            assertThat(lease.keys()).as("duplicates count once").hasSize(3);
        }
        assertThatThrownBy(() -> build(0, 8)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxKeys");
        assertThatThrownBy(() -> build(3, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxKeyLength");
    }

    @Test
    void hugeOrMalformedKeysShouldBeRejectedNamingTheirPosition() {
        LockRegistry registry = registry(1000, 1024);

        assertThatThrownBy(() -> registry.acquire(List.of("k".repeat(1 << 20))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key at position 0 is 1048576 characters long").message().hasSizeLessThan(300);
        assertThatThrownBy(() -> registry.acquire(List.of("user:a", "user:\uD800")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key at position 1 is not well-formed UTF-16");
        assertThatThrownBy(() -> registry.tryAcquire(List.of("user:\uDFFF")))
                .hasMessageContaining("key at position 0 is not well-formed UTF-16");
        assertThat(registry.heldLocks()).isEmpty();
        try (Lease lease = registry.acquire(List.of("user:?"))) {
            assertThat(registry.tryAcquire(List.of("user:\uD83D\uDE00"))).as("a different key")
                    .isPresent().get().satisfies(Lease::close);
        }
    }
}
