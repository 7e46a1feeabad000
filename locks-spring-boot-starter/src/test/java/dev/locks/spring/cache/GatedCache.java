package dev.locks.spring.cache;

import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.caffeine.CaffeineCache;

/**
 * A cache whose first store ({@code put} or {@code putIfAbsent}) waits until the test {@linkplain #open opens} it,
 * having told that it {@linkplain #arrived arrived}: so a test holds a value that has reached a node, but not yet
 * that node's cache, for as long as it needs. Otherwise a Caffeine cache as Spring's.
 */
final class GatedCache extends CaffeineCache {

    private final AtomicBoolean first = new AtomicBoolean(true);

    private final CountDownLatch arrived = new CountDownLatch(1);

    private final CountDownLatch open = new CountDownLatch(1);

    GatedCache(String name) {
        super(name, Caffeine.newBuilder().build());
    }

    /** Waits (at most 20 s) until the first store has come and waits at the gate. */
    boolean awaitArrival() throws InterruptedException {
        return arrived.await(20, TimeUnit.SECONDS);
    }

    /** Lets the first store through. */
    void open() {
        open.countDown();
    }

    private void gate() {
        if (first.compareAndSet(true, false)) {
            arrived.countDown();
            try {
                open.await(20, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public <T> @Nullable T get(Object key, Callable<T> valueLoader) {
        return super.get(key, () -> {
            T value = valueLoader.call();
            gate(); // the target stores it as this returns
            return value;
        });
    }

    @Override
    public void put(Object key, @Nullable Object value) {
        gate();
        super.put(key, value);
    }

    @Override
    public @Nullable ValueWrapper putIfAbsent(Object key, @Nullable Object value) {
        gate();
        return super.putIfAbsent(key, value);
    }
}
