package dev.locks.sample;

import dev.locks.sample.accounts.AccountNotFoundException;
import dev.locks.sample.accounts.FencedOffException;
import dev.locks.sample.accounts.InsufficientFundsException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the sample's own failures into problem details with a status that says what happened; the library's
 * exceptions are mapped by {@link LockErrors}.
 */
@RestControllerAdvice
class ErrorHandling {

    /** Someone else took the keys over (this caller's lock had expired) and wrote first. */
    @ExceptionHandler(FencedOffException.class)
    ProblemDetail fencedOff(FencedOffException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
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
