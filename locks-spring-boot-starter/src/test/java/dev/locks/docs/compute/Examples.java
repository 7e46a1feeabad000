package dev.locks.docs.compute;

import dev.locks.ComputeCache;
import dev.locks.ComputeOptions;
import dev.locks.annotation.FetchOrCompute;
import java.math.BigDecimal;
import java.time.Duration;

/** The examples of docs/fetch-or-compute.md. */
class Examples {

    record Quote(String symbol, BigDecimal price) {
    }

    private final ComputeCache cache;

    Examples(ComputeCache cache) {
        this.cache = cache;
    }

    // tag::fresh-annotation[]
    @FetchOrCompute(name = "quotes", key = "#symbol", ttl = "10m", refreshAfter = "8m", staleIfError = "1h")
    Quote quote(String symbol) {
        return load(symbol);
    }
    // end::fresh-annotation[]

    Quote direct() {
        // tag::fresh-direct[]
        Quote quote = cache.fetchOrCompute("quotes:ACME", ComputeOptions.defaults().withTtl(Duration.ofMinutes(10))
                .withRefreshAfter(Duration.ofMinutes(8)).withStaleIfError(Duration.ofHours(1)), () -> load("ACME"));
        // end::fresh-direct[]
        return quote;
    }

    private static Quote load(String symbol) {
        return new Quote(symbol, BigDecimal.ONE);
    }
}
