package dev.locks.spring;

import java.util.Locale;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a {@link MissingLocksBackendException}: which dependency to add, or which property to change. */
class MissingLocksBackendFailureAnalyzer extends AbstractFailureAnalyzer<MissingLocksBackendException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, MissingLocksBackendException cause) {
        String name = cause.backend().name().toLowerCase(Locale.ROOT);
        String description = "The configuration property 'locks.backend' is '" + name + "', but the " + name
                + " backend is not on the classpath (" + cause.missingClass() + " was not found).";
        String action = "Add the dependency 'dev.locks:locks-" + name + "' to the application"
                + (cause.backend() == LocksBackend.REDIS
                        ? " (with spring-boot-starter-data-redis and the spring.data.redis.* connection settings)"
                        : "")
                + ", or set 'locks.backend' to 'local' (or leave it unset) to use the in-memory backend.";
        return new FailureAnalysis(description, action, cause);
    }
}
