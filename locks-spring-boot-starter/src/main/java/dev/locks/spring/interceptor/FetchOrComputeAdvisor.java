package dev.locks.spring.interceptor;

/** Applies the {@link FetchOrComputeInterceptor} to {@code @FetchOrCompute} methods. */
public class FetchOrComputeAdvisor extends AnnotationOperationAdvisor {

    private static final long serialVersionUID = 1L;

    public FetchOrComputeAdvisor(FetchOrComputeOperationSource operations, FetchOrComputeInterceptor interceptor,
            int order) {
        super(operations, interceptor, order);
    }
}
