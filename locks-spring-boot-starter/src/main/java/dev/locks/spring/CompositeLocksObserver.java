package dev.locks.spring;

import dev.locks.LocksObserver;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Several {@link LocksObserver}s as one, called in order. One that throws is logged and skipped, so that
 * the others still see the event.
 */
public final class CompositeLocksObserver implements LocksObserver {

    private static final Log logger = LogFactory.getLog(CompositeLocksObserver.class);

    private final LocksObserver[] observers;

    private CompositeLocksObserver(List<LocksObserver> observers) {
        this.observers = observers.toArray(LocksObserver[]::new);
    }

    /** {@link LocksObserver#NONE} for none, the observer itself for one, else a composite in the given order. */
    public static LocksObserver of(List<LocksObserver> observers) {
        return switch (observers.size()) {
            case 0 -> LocksObserver.NONE;
            case 1 -> observers.get(0);
            default -> new CompositeLocksObserver(observers);
        };
    }

    /** Each observer's context, nested in order around the callback. */
    @Override
    public Executor callerContext() {
        Executor context = Runnable::run;
        for (int i = observers.length - 1; i >= 0; i--) {
            Executor outer;
            try {
                outer = observers[i].callerContext();
            }
            catch (RuntimeException ex) {
                failed(observers[i], ex);
                continue;
            }
            Executor inner = context;
            context = task -> outer.execute(() -> inner.execute(task));
        }
        return context;
    }

    @Override
    public void onAcquire(AcquireResult result, long nanos) {
        for (LocksObserver observer : observers) {
            try {
                observer.onAcquire(result, nanos);
            }
            catch (RuntimeException ex) {
                failed(observer, ex);
            }
        }
    }

    @Override
    public void onStaleRemoved(StaleReason reason, Remover by) {
        for (LocksObserver observer : observers) {
            try {
                observer.onStaleRemoved(reason, by);
            }
            catch (RuntimeException ex) {
                failed(observer, ex);
            }
        }
    }

    @Override
    public void onSweep(int removed, long nanos) {
        for (LocksObserver observer : observers) {
            try {
                observer.onSweep(removed, nanos);
            }
            catch (RuntimeException ex) {
                failed(observer, ex);
            }
        }
    }

    @Override
    public void onLeaseLost(String key) {
        for (LocksObserver observer : observers) {
            try {
                observer.onLeaseLost(key);
            }
            catch (RuntimeException ex) {
                failed(observer, ex);
            }
        }
    }

    @Override
    public void onCompute(ComputeResult result, long nanos) {
        for (LocksObserver observer : observers) {
            try {
                observer.onCompute(result, nanos);
            }
            catch (RuntimeException ex) {
                failed(observer, ex);
            }
        }
    }

    // Each event is a plain loop rather than one helper taking a lambda: callbacks run on the hot path.
    private static void failed(LocksObserver observer, RuntimeException ex) {
        logger.warn("LocksObserver " + observer + " failed; the other observers still run", ex);
    }
}
