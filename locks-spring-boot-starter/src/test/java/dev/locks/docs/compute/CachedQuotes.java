package dev.locks.docs.compute;

import dev.locks.docs.compute.Examples.Quote;
import org.springframework.cache.annotation.Cacheable;

/** A method cached with Spring's @Cacheable, which locks.cache.single-flight loads once across nodes. */
class CachedQuotes {

    // tag::cacheable[]
    @Cacheable(cacheNames = "quotes", sync = true)   // as it was
    public Quote quote(String symbol) {
        return load(symbol);
    }
    // end::cacheable[]

    private static Quote load(String symbol) {
        return new Quote(symbol, java.math.BigDecimal.ONE);
    }
}
