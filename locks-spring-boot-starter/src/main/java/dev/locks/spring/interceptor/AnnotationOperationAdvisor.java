package dev.locks.spring.interceptor;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;

/**
 * Applies an interceptor to the methods an {@link AnnotationOperationSource} has operations for. A plain
 * advisor, registered as an infrastructure bean as Spring's transaction advisor is, so that whatever
 * auto-proxy creator the application has applies it (no {@code @EnableAspectJAutoProxy}).
 */
public abstract class AnnotationOperationAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient Pointcut pointcut;

    private final transient MethodInterceptor interceptor;

    protected AnnotationOperationAdvisor(AnnotationOperationSource<?, ?> operations, MethodInterceptor interceptor,
            int order) {
        this.pointcut = new OperationPointcut(operations);
        this.interceptor = interceptor;
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
