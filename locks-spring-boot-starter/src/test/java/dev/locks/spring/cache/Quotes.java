package dev.locks.spring.cache;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.Cacheable;

/**
 * One node's cached methods. Each load is counted on its node and waits until every caller of the test has
 * called ({@link Callers}), so that all of them miss together; each loaded value is new (a random suffix), so
 * that callers that got one value got one load.
 */
public class Quotes {

    private final AtomicInteger loads = new AtomicInteger();

    private final Callers callers;

    public Quotes(Callers callers) {
        this.callers = callers;
    }

    /** How many loads this node ran (a method: the bean is a proxy). */
    public int loads() {
        return loads.get();
    }

    @Cacheable(cacheNames = "quotes", sync = true)
    public String quote(String symbol) {
        return load(symbol);
    }

    @Cacheable(cacheNames = "quotes", sync = true, key = "'failing-' + #symbol")
    public String failing(String symbol) {
        loads.incrementAndGet();
        callers.awaitAll();
        throw new QuoteUnavailableException(symbol);
    }

    @Cacheable(cacheNames = "prices", sync = true)
    public String price(String symbol) {
        return load(symbol);
    }

    @Cacheable(cacheNames = "quotes", sync = true, key = "'later-' + #symbol")
    public CompletableFuture<String> quoteLater(String symbol) {
        loads.incrementAndGet();
        return CompletableFuture.supplyAsync(() -> {
            callers.awaitAll();
            return symbol + ":" + UUID.randomUUID();
        });
    }

    @Cacheable(cacheNames = "quotes", sync = true, key = "'plain-' + #symbol")
    public PlainQuote plain(String symbol) {
        loads.incrementAndGet();
        callers.awaitAll();
        return new PlainQuote(symbol);
    }

    @Cacheable(cacheNames = "quotes", sync = true, key = "'failing-later-' + #symbol")
    public CompletableFuture<String> failingLater(String symbol) {
        loads.incrementAndGet();
        return CompletableFuture.supplyAsync(() -> {
            callers.awaitAll();
            throw new QuoteUnavailableException(symbol);
        });
    }

    @CacheEvict(cacheNames = "quotes")
    public void evict(String symbol) {
    }

    private String load(String symbol) {
        loads.incrementAndGet();
        callers.awaitAll();
        return symbol + ":" + UUID.randomUUID();
    }

    /** A value that a Caffeine cache keeps but that is not {@link java.io.Serializable}. */
    public record PlainQuote(String symbol) {
    }

    /** What the loader of {@link #failing} throws. */
    public static class QuoteUnavailableException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        QuoteUnavailableException(String symbol) {
            super("no quote for " + symbol);
        }
    }
}
