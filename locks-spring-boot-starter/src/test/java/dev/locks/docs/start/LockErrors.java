package dev.locks.docs.start;

import dev.locks.LockTimeoutException;
import dev.locks.LockUnavailableException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

// tag::lock-errors[]
@RestControllerAdvice
class LockErrors {

    @ExceptionHandler(LockTimeoutException.class)
    ProblemDetail busy(LockTimeoutException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
    }

    @ExceptionHandler(LockUnavailableException.class)
    ProblemDetail unavailable(LockUnavailableException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
    }
}
// end::lock-errors[]
