package dev.locks.sample.rates;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;

/**
 * A rate, and when it was loaded. Serializable because the waiters of other instances receive it through the locks
 * backend (on Redis, with JDK serialization of the application's packages), though each instance caches it in its
 * own Caffeine cache.
 */
public record ExchangeRate(String currency, BigDecimal rate, Instant loadedAt) implements Serializable {
}
