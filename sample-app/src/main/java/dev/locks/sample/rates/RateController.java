package dev.locks.sample.rates;

import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** {@code /rates}. */
@RestController
class RateController {

    private final RateService rates;

    RateController(RateService rates) {
        this.rates = rates;
    }

    /** Slow the first time (300 to 500 ms), then served from this instance's cache for 60 seconds. */
    @GetMapping("/rates/{currency}")
    ExchangeRate rate(@PathVariable String currency) {
        return rates.rate(currency);
    }

    /** Drops the rate from this instance's cache. */
    @DeleteMapping("/rates/{currency}")
    void evict(@PathVariable String currency) {
        rates.evict(currency);
    }
}
