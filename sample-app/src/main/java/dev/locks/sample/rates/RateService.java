package dev.locks.sample.rates;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;

/** Exchange rates that take 300 to 500 ms to load, as a call to a slow upstream service would. */
@Service
public class RateService {

    private final AtomicLong loads = new AtomicLong();

    /**
     * The rate of {@code currency}, cached for 60 seconds in this instance's Caffeine cache "rates". Plain Spring:
     * with {@code locks.cache.single-flight=true} a miss is loaded by one caller across all instances, and the
     * others, on any instance, wait for its rate.
     */
    @Cacheable(cacheNames = "rates", sync = true)
    public ExchangeRate rate(String currency) {
        loads.incrementAndGet();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
            Thread.sleep(random.nextLong(300, 501));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while loading the rate of " + currency, ex);
        }
        BigDecimal rate = BigDecimal.valueOf(random.nextDouble(0.5, 2)).setScale(4, RoundingMode.HALF_UP);
        return new ExchangeRate(currency, rate, Instant.now());
    }

    /** Drops the cached rate of {@code currency} from this instance's cache. */
    @CacheEvict(cacheNames = "rates")
    public void evict(String currency) {
    }

    /** How many times a rate has been loaded by this instance since it started. */
    public long loads() {
        return loads.get();
    }
}
