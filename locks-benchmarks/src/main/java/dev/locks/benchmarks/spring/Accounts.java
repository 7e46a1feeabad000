package dev.locks.benchmarks.spring;

import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import org.springframework.cache.annotation.Cacheable;
import reactor.core.publisher.Mono;

/**
 * One trivial method body behind each annotation, with the same SpEL key everywhere: what is measured is the
 * interception (proxy, key expression, lock or cache), not the body.
 */
public class Accounts {

    /** What every method returns: a value that exists already, so the body allocates nothing. */
    public static final Object BALANCE = new Object();

    /** The bare method: called on an instance that is not a proxy. */
    public Object balance(String id) {
        return BALANCE;
    }

    @Locked(keys = "'account:' + #id")
    public Object lockedBalance(String id) {
        return BALANCE;
    }

    /** The same lock as {@link #lockedBalance}'s, taken on subscription of the {@code Mono}. */
    @Locked(keys = "'account:' + #id")
    public Mono<Object> lockedMonoBalance(String id) {
        return Mono.just(BALANCE);
    }

    @Cacheable(cacheNames = BenchmarkContext.CACHE, key = "'account:' + #id", sync = true)
    public Object cachedBalance(String id) {
        return BALANCE;
    }

    @FetchOrCompute(key = "'account:' + #id", ttl = "5m")
    public Object computedBalance(String id) {
        return BALANCE;
    }
}
