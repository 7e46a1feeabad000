package dev.locks.docs.start;

import dev.locks.annotation.EvictComputed;
import dev.locks.annotation.FetchOrCompute;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

// tag::quick-start[]
@Service
class QuoteService {

    private final QuoteUpstream slowUpstream;
    private final QuoteRepository repository;

    QuoteService(QuoteUpstream slowUpstream, QuoteRepository repository) {
        this.slowUpstream = slowUpstream;
        this.repository = repository;
    }

    // tag::quote[]
    @FetchOrCompute(name = "quotes", key = "#symbol", ttl = "30s")   // stored as "quotes:<symbol>"
    public Quote quote(String symbol) {
        return slowUpstream.fetch(symbol);   // runs once per miss, however many callers miss together
    }
    // end::quote[]

    @EvictComputed(name = "quotes", key = "#quote.symbol")   // after a normal return (and the commit)
    @Transactional
    public void save(Quote quote) {
        repository.save(quote);
    }
}
// end::quick-start[]
