package dev.locks.spring.interceptor;

import java.lang.reflect.Method;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the methods an {@link AnnotationOperationSource} has an operation for. Its class filter is where
 * a bean class's annotations are parsed, when the auto-proxy creator first considers the bean.
 */
final class OperationPointcut extends StaticMethodMatcherPointcut {

    private final AnnotationOperationSource<?, ?> operations;

    OperationPointcut(AnnotationOperationSource<?, ?> operations) {
        this.operations = operations;
        setClassFilter(operations::hasOperations);
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return operations.operation(method, targetClass) != null;
    }
}
