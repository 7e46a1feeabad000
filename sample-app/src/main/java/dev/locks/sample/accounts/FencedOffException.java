package dev.locks.sample.accounts;

/**
 * A newer lock holder has already written the account: this caller's lock expired and was taken over, so
 * its write is refused rather than allowed to overwrite its successor's.
 */
public class FencedOffException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    FencedOffException(long id, long token) {
        super("account " + id + " was written by a newer lock holder than fencing token " + token);
    }
}
