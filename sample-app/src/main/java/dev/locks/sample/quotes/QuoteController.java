package dev.locks.sample.quotes;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code /quotes}. */
@RestController
class QuoteController {

    private static final int MAX_CALLERS = 500;

    private final QuoteService quotes;

    private final Stampede stampede;

    QuoteController(QuoteService quotes, Stampede stampede) {
        this.quotes = quotes;
        this.stampede = stampede;
    }

    /** Slow the first time (300 to 500 ms), then served from the cache for 30 seconds. */
    @GetMapping("/quotes/{symbol}")
    Quote quote(@PathVariable String symbol) {
        return quotes.quote(symbol);
    }

    /** {@code callers} concurrent requests for one uncached quote: it is computed once. */
    @PostMapping("/quotes/{symbol}/stampede")
    Stampede.Report stampede(@PathVariable String symbol, @RequestParam(defaultValue = "100") int callers) {
        if (callers < 1 || callers > MAX_CALLERS) {
            throw new IllegalArgumentException("callers must be in 1.." + MAX_CALLERS + ", was " + callers);
        }
        return stampede.run(symbol, callers);
    }
}
