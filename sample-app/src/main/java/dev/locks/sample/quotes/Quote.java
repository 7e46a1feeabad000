package dev.locks.sample.quotes;

import java.math.BigDecimal;
import java.time.Instant;

/** A price, and when it was computed. */
public record Quote(String symbol, BigDecimal price, Instant computedAt) {
}
