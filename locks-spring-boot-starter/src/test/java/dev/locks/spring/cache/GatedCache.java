package dev.locks.spring.cache;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.Cache;

/**
 * A cache whose first store ({@code put} or {@code putIfAbsent}) waits until the test {@linkplain #open opens} it,
 * having told that it {@linkplain #arrived arrived}: so a test holds a value that has reached a node, but not yet
 * that node's cache, for as long as it needs. Every other call goes straight to the wrapped cache.
 */
final class GatedCache implements Cache {

    private final Cache target;

    private final AtomicBoolean first = new AtomicBoolean(true);

    private final CountDownLatch arrived = new CountDownLatch(1);

    private final CountDownLatch open = new CountDownLatch(1);

    GatedCache(Cache target) {
        this.target = target;
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
    public String getName() {
        return target.getName();
    }

    @Override
    public Object getNativeCache() {
        return target.getNativeCache();
    }

    @Override
    public @Nullable ValueWrapper get(Object key) {
        return target.get(key);
    }

    @Override
    public <T> @Nullable T get(Object key, @Nullable Class<T> type) {
        return target.get(key, type);
    }

    @Override
    public <T> @Nullable T get(Object key, Callable<T> valueLoader) {
        return target.get(key, () -> {
            T value = valueLoader.call();
            gate(); // the target stores it as this returns
            return value;
        });
    }

    @Override
    public void put(Object key, @Nullable Object value) {
        gate();
        target.put(key, value);
    }

    @Override
    public @Nullable ValueWrapper putIfAbsent(Object key, @Nullable Object value) {
        gate();
        return target.putIfAbsent(key, value);
    }

    @Override
    public void evict(Object key) {
        target.evict(key);
    }

    @Override
    public void clear() {
        target.clear();
    }
}
