package dev.locks.sample.quotes;

import dev.locks.annotation.EvictComputed;
import dev.locks.annotation.FetchOrCompute;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Service;

/** Quotes that take 300 to 500 ms to compute, as a call to a slow upstream service would. */
@Service
public class QuoteService {

    private final AtomicLong computations = new AtomicLong();

    /**
     * The quote of {@code symbol}: computed at most once at a time however many callers ask together, then
     * served from the cache for 30 seconds.
     */
    @FetchOrCompute(name = "quotes", key = "#symbol", ttl = "30s")
    public Quote quote(String symbol) {
        computations.incrementAndGet();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
            Thread.sleep(random.nextLong(300, 501));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while computing the quote of " + symbol, ex);
        }
        BigDecimal price = BigDecimal.valueOf(random.nextDouble(10, 1000)).setScale(2, RoundingMode.HALF_UP);
        return new Quote(symbol, price, Instant.now());
    }

    /**
     * Drops the cached quote of {@code symbol} (stored as {@code "quotes:<symbol>"}) once this returns: a quote
     * being computed meanwhile is not stored either, so the next call computes a fresh one.
     */
    @EvictComputed(name = "quotes", key = "#symbol")
    public void refresh(String symbol) {
    }

    /** How many times a quote has been computed since the application started. */
    public long computations() {
        return computations.get();
    }
}
