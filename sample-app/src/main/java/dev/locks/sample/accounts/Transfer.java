package dev.locks.sample.accounts;

import java.math.BigDecimal;

/**
 * A transfer that was made.
 *
 * @param fencingToken the token of the lease under which it was written
 */
public record Transfer(long from, long to, BigDecimal amount, long fencingToken) {
}
