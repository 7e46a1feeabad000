package dev.locks.sample.accounts;

import java.math.BigDecimal;

/** An account and its balance. */
public record Account(long id, String owner, BigDecimal balance) {
}
