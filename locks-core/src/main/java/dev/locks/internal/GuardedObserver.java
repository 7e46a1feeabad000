package dev.locks.internal;

import dev.locks.LocksObserver;
import java.lang.System.Logger.Level;
import java.util.concurrent.Executor;

/**
 * Wraps an observer so that a callback that throws is logged and ignored: metrics never skip an unlock or
 * fail an acquire. Not an API.
 */
final class GuardedObserver implements LocksObserver {

    private static final System.Logger LOG = System.getLogger(GuardedObserver.class.getName());

    private final LocksObserver delegate;

    private GuardedObserver(LocksObserver delegate) {
        this.delegate = delegate;
    }

    /** {@code observer} guarded, or {@link LocksObserver#NONE} itself (callers test for it to skip timing). */
    static LocksObserver guard(LocksObserver observer) {
        if (observer == null || observer == NONE) {
            return NONE;
        }
        return observer instanceof GuardedObserver ? observer : new GuardedObserver(observer);
    }

    @Override
    public Executor callerContext() {
        Executor context;
        try {
            context = delegate.callerContext();
        } catch (RuntimeException e) {
            failed("callerContext", e);
            return Runnable::run;
        }
        return task -> {
            try {
                context.execute(task);
            } catch (RuntimeException e) {
                failed("callerContext", e);
            }
        };
    }

    @Override
    public void onAcquire(AcquireResult result, long nanos) {
        try {
            delegate.onAcquire(result, nanos);
        } catch (RuntimeException e) {
            failed("onAcquire", e);
        }
    }

    @Override
    public void onStaleRemoved(StaleReason reason, Remover by) {
        try {
            delegate.onStaleRemoved(reason, by);
        } catch (RuntimeException e) {
            failed("onStaleRemoved", e);
        }
    }

    @Override
    public void onSweep(int removed, long nanos) {
        try {
            delegate.onSweep(removed, nanos);
        } catch (RuntimeException e) {
            failed("onSweep", e);
        }
    }

    @Override
    public void onLeaseLost(String key) {
        try {
            delegate.onLeaseLost(key);
        } catch (RuntimeException e) {
            failed("onLeaseLost", e);
        }
    }

    @Override
    public void onCompute(ComputeResult result, long nanos) {
        try {
            delegate.onCompute(result, nanos);
        } catch (RuntimeException e) {
            failed("onCompute", e);
        }
    }

    private void failed(String callback, RuntimeException e) {
        LOG.log(Level.WARNING, () -> "LocksObserver " + delegate.getClass().getName() + "." + callback
                + " threw; ignored", e);
    }
}
