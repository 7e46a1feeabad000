package dev.locks.sample;

import dev.locks.LockTimeoutException;
import dev.locks.LockUnavailableException;
import dev.locks.sample.accounts.AccountNotFoundException;
import dev.locks.sample.accounts.FencedOffException;
import dev.locks.sample.accounts.InsufficientFundsException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** Turns the sample's failures into problem details with a status that says what happened. */
@RestControllerAdvice
class ErrorHandling {

    /**
     * Someone else held the keys for longer than this caller was willing to wait, or took them over and
     * wrote first.
     */
    @ExceptionHandler({ LockTimeoutException.class, FencedOffException.class })
    ProblemDetail conflict(RuntimeException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
    }

    /** The lock backend cannot be reached (Redis is down): the call did not run, and may be tried again later. */
    @ExceptionHandler(LockUnavailableException.class)
    ProblemDetail unavailable(LockUnavailableException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
    }

    @ExceptionHandler(AccountNotFoundException.class)
    ProblemDetail notFound(AccountNotFoundException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
    }

    @ExceptionHandler(InsufficientFundsException.class)
    ProblemDetail insufficientFunds(InsufficientFundsException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.UNPROCESSABLE_CONTENT, ex.getMessage());
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ProblemDetail badRequest(IllegalArgumentException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
    }
}
