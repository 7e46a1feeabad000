package dev.locks.spring.interceptor;

import dev.locks.annotation.EvictComputed;
import java.lang.reflect.Method;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.env.Environment;

/**
 * Parses {@link EvictComputed} annotations once per bean class: the name (required, not blank) and the key
 * expression, checked as {@code @FetchOrCompute}'s are.
 */
public class EvictComputedOperationSource extends AnnotationOperationSource<EvictComputed, EvictComputedOperation> {

    private final Environment environment;

    private final KeyExpressions expressions;

    public EvictComputedOperationSource(Environment environment, BeanFactory beanFactory) {
        super(EvictComputed.class);
        this.environment = environment;
        this.expressions = new KeyExpressions(beanFactory);
    }

    @Override
    protected EvictComputedOperation parse(EvictComputed annotation, Method method, Class<?> targetClass) {
        AttributeValues values = new AttributeValues(environment, EvictComputed.class, targetClass, method);
        String name = annotation.name().trim();
        if (name.isEmpty()) {
            throw values.invalid("name", annotation.name(), "it is empty",
                    "Give the name of the @FetchOrCompute values to evict (its name attribute).");
        }
        return new EvictComputedOperation(ComputedKey.parse(EvictComputed.class, name, annotation.key(), method,
                targetClass, values, expressions));
    }
}
