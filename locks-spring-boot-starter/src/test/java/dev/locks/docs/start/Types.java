package dev.locks.docs.start;

import java.math.BigDecimal;

/** What the getting-started examples talk to: the reader's own storage and upstream. */
record Quote(String symbol, BigDecimal price) {
}

interface Accounts {

    void move(long from, long to, BigDecimal amount, long fencingToken);
}

interface QuoteUpstream {

    Quote fetch(String symbol);
}

interface QuoteRepository {

    void save(Quote quote);
}
