package dev.locks.sample;

import dev.locks.LockTimeoutException;
import dev.locks.LockUnavailableException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The library's two exceptions as HTTP answers: without a handler like this one Spring Boot answers both with
 * a 500. A {@link LockTimeoutException} means the keys stayed busy past the caller's wait (a conflict: try
 * again later); a {@link LockUnavailableException} that the backend could not be reached and the method did
 * not run. docs/getting-started.md shows this class as it is.
 */
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
