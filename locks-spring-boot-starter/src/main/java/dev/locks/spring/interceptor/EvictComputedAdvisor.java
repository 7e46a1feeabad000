package dev.locks.spring.interceptor;

/** Applies the {@link EvictComputedInterceptor} to {@code @EvictComputed} methods. */
public class EvictComputedAdvisor extends AnnotationOperationAdvisor {

    private static final long serialVersionUID = 1L;

    public EvictComputedAdvisor(EvictComputedOperationSource operations, EvictComputedInterceptor interceptor,
            int order) {
        super(operations, interceptor, order);
    }
}
