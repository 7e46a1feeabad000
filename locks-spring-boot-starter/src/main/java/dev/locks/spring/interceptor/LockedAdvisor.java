package dev.locks.spring.interceptor;

/** Applies the {@link LockedInterceptor} to {@code @Locked} methods. */
public class LockedAdvisor extends AnnotationOperationAdvisor {

    private static final long serialVersionUID = 1L;

    public LockedAdvisor(LockedOperationSource operations, LockedInterceptor interceptor, int order) {
        super(operations, interceptor, order);
    }
}
