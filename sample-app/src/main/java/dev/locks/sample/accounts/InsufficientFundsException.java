package dev.locks.sample.accounts;

import java.math.BigDecimal;

/** The account cannot pay that amount. */
public class InsufficientFundsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    InsufficientFundsException(long id, BigDecimal balance, BigDecimal amount) {
        super("account " + id + " has " + balance + ", cannot pay " + amount);
    }
}
