package dev.locks.spring.cache;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.Cache;

/**
 * A Spring {@link Cache} whose misses are loaded once across all nodes: {@link #get(Object, Callable)} (what
 * {@code @Cacheable(sync = true)} calls) and {@link #retrieve(Object, Supplier)} (its asynchronous form) call the
 * loader at most once at a time per key across every node of the locks backend ({@link CacheFlights}); the other
 * callers, on any node, wait and get the loaded value, which a cache of their own node stores too. Everything else
 * ({@code get(key)}, {@code put}, {@code evict}, {@code clear}, TTLs, serialization, statistics) is the wrapped
 * cache's own, unchanged, but for {@code evict} and {@code evictIfPresent}, which also take the compute cache's
 * short-lived copy of the key's last load out ({@link CacheFlights#GRACE}); {@link #getNativeCache()} is the wrapped
 * cache's native cache.
 *
 * <p>The starter wraps the caches of the application's {@code CacheManager} beans with it when
 * {@code locks.cache.single-flight=true}; {@link #getTargetCache()} is the wrapped cache.
 */
public final class SingleFlightCache implements Cache {

    private final Cache target;

    private final String flightPrefix;

    private final CacheFlights flights;

    /** The misses of this node in flight, by key: {@link CacheFlights}. */
    private final ConcurrentMap<Object, CacheFlights.Landing> landings = new ConcurrentHashMap<>();

    /**
     * @param manager the name of the cache manager bean, part of the key of a miss across nodes
     */
    SingleFlightCache(Cache target, String manager, CacheFlights flights) {
        this.target = target;
        this.flightPrefix = "spring-cache:" + manager + ":" + target.getName() + ":";
        this.flights = flights;
    }

    /** The cache this one wraps, which stores the values. */
    public Cache getTargetCache() {
        return target;
    }

    /**
     * The key of the miss of {@code key} in the locks backend: the cache manager's bean name, the cache's name and
     * {@code key.toString()}, so the same on every node for a key whose {@code toString()} is (as the keys of
     * Spring's {@code SimpleKeyGenerator} and Redis caches must be).
     */
    String flightKey(Object key) {
        return flightPrefix + key;
    }

    ConcurrentMap<Object, CacheFlights.Landing> landings() {
        return landings;
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

    /**
     * The cached value of {@code key}, else the value that {@code valueLoader} of one caller across all nodes loads
     * (this one's, or another's that this call waits for), stored in this node's cache before it returns.
     *
     * @throws ValueRetrievalException with the loader's exception (the computer's own on every waiter of its node,
     *         a {@link dev.locks.ComputeFailedException} naming it on other nodes)
     */
    @Override
    @SuppressWarnings("unchecked")
    public <T> @Nullable T get(Object key, Callable<T> valueLoader) {
        ValueWrapper cached = target.get(key); // one lookup: a cached null is a hit too
        if (cached != null) {
            return (T) cached.get();
        }
        return flights.load(this, key, valueLoader);
    }

    @Override
    public @Nullable CompletableFuture<?> retrieve(Object key) {
        return target.retrieve(key);
    }

    /**
     * The wrapped cache's {@code retrieve(key, loader)}, whose loader, on a miss, loads once across all nodes: the
     * wrapped cache looks up and stores as it does, and only its miss waits for, or becomes, the one loader call.
     */
    @Override
    public <T> CompletableFuture<T> retrieve(Object key, Supplier<CompletableFuture<T>> valueLoader) {
        return target.retrieve(key, () -> flights.loadAsync(this, key, valueLoader));
    }

    @Override
    public void put(Object key, @Nullable Object value) {
        target.put(key, value);
    }

    @Override
    public @Nullable ValueWrapper putIfAbsent(Object key, @Nullable Object value) {
        return target.putIfAbsent(key, value);
    }

    /** The wrapped cache's eviction, after the compute cache's copy of the last load of {@code key} is gone. */
    @Override
    public void evict(Object key) {
        flights.evicted(this, key);
        target.evict(key);
    }

    /** The wrapped cache's eviction, after the compute cache's copy of the last load of {@code key} is gone. */
    @Override
    public boolean evictIfPresent(Object key) {
        flights.evicted(this, key);
        return target.evictIfPresent(key);
    }

    @Override
    public void clear() {
        target.clear();
    }

    @Override
    public boolean invalidate() {
        return target.invalidate();
    }

    @Override
    public String toString() {
        return "SingleFlightCache[" + target + "]";
    }
}
