package dev.locks.spring.interceptor;

import java.util.concurrent.Executor;

/**
 * The name of the annotated call running on this thread, for the {@code name} tag of the meters: an
 * interceptor sets it around its registry or cache call, whose events ({@link dev.locks.LocksObserver}) arrive
 * on the caller's thread before that call returns. Outside such a call it is {@value #NONE}, so direct calls of
 * the API are tagged {@code name=none}. The body of a {@code @FetchOrCompute} method runs under the name of
 * whoever called the method, not under its own, so that its own direct calls are not counted as the method's.
 */
public final class CallNames {

    /** The name of a direct call of the API. */
    public static final String NONE = "none";

    private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    private static final ThreadLocal<Boolean> SKIPPING = new ThreadLocal<>();

    private CallNames() {
    }

    /** The name of the annotated call running on this thread, or {@value #NONE}. */
    public static String current() {
        String name = CURRENT.get();
        return (name != null) ? name : NONE;
    }

    /**
     * Whether the acquire running on this thread is an annotated call's that skips its method when its keys cannot
     * be taken ({@code @Locked(onTimeout = "skip")}): its timeout counts as {@code result=skipped}, not
     * {@code timeout}.
     */
    public static boolean skipping() {
        return SKIPPING.get() != null;
    }

    /** Marks the acquire starting on this thread as a skipping call's ({@code true}), or ends that. */
    static void skipping(boolean skipping) {
        if (skipping) {
            SKIPPING.set(Boolean.TRUE);
        }
        else {
            SKIPPING.remove();
        }
    }

    /**
     * What runs a task with this thread's current name (and whether its call skips) as the current ones, on
     * whatever thread it runs: for an observer's events that arrive on another thread than the annotated call's
     * ({@link dev.locks.LocksObserver#callerContext()}).
     */
    public static Executor capture() {
        String name = CURRENT.get();
        boolean skips = skipping();
        return (task) -> {
            String previous = enter(name);
            boolean skipped = skipping();
            skipping(skips);
            try {
                task.run();
            }
            finally {
                skipping(skipped);
                restore(previous);
            }
        };
    }

    /**
     * Sets the current name ({@code null}: none); returns the one before, for {@link #restore}. For the starter's
     * own callers of the cache (the interceptors, and {@code dev.locks.spring.cache} for Spring's caches).
     */
    public static String enter(String name) {
        String previous = CURRENT.get();
        restore(name);
        return previous;
    }

    /** Sets the name back to what {@link #enter} returned. */
    public static void restore(String previous) {
        if (previous == null) {
            CURRENT.remove();
        }
        else {
            CURRENT.set(previous);
        }
    }
}
