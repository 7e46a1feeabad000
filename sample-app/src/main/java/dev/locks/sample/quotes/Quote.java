package dev.locks.sample.quotes;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;

/**
 * A price, and when it was computed. Serializable because on the Redis backend computed values are stored in
 * Redis, with JDK serialization (which allows the application's packages) unless the application defines a
 * {@code locksRedisSerializer} bean.
 */
public record Quote(String symbol, BigDecimal price, Instant computedAt) implements Serializable {
}
