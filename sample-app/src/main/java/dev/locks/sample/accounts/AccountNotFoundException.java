package dev.locks.sample.accounts;

/** No account has that id. */
public class AccountNotFoundException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    AccountNotFoundException(long id) {
        super("no account " + id);
    }
}
