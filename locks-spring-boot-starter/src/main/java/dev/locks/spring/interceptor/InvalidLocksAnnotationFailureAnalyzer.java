package dev.locks.spring.interceptor;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains an {@link InvalidLocksAnnotationException} at startup, as Spring Boot's own failures read. */
class InvalidLocksAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLocksAnnotationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidLocksAnnotationException cause) {
        StringBuilder description = new StringBuilder()
                .append("The @").append(cause.annotationType().getSimpleName())
                .append(" annotation of method '").append(cause.method().getName())
                .append("' in class '").append(cause.targetClass().getName()).append("' is invalid:\n\n");
        description.append("    Method: ").append(MethodDescriptions.describe(cause.targetClass(), cause.method()))
                .append('\n');
        if (cause.attribute() != null) {
            description.append("    Attribute: ").append(cause.attribute()).append('\n');
        }
        if (cause.value() != null) {
            description.append("    Value: '").append(cause.value()).append("'\n");
        }
        description.append("    Reason: ").append(cause.reason());
        return new FailureAnalysis(description.toString(), cause.action(), cause);
    }
}
