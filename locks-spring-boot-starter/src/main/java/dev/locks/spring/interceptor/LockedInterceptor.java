package dev.locks.spring.interceptor;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import dev.locks.LockTimeoutException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Runs a {@code @Locked} method only while its keys are held.
 *
 * <ul>
 *   <li>The keys are acquired all-or-nothing before the method runs, with the registry's default options
 *       and the annotation's own; when they cannot be taken the registry's {@code LockTimeoutException} (or
 *       {@code LockUnavailableException}) propagates and the method does not run.</li>
 *   <li>With {@code onTimeout = "skip"}, a call whose keys were not taken within its wait (a
 *       {@code LockTimeoutException}) returns without running the method: {@code null}, an empty {@code Optional},
 *       a {@code CompletableFuture} of {@code null}, an empty {@code Mono} or {@code Flux}; its acquire counts as
 *       {@code result=skipped} ({@link CallNames#skipping}) and it is logged at {@code DEBUG} only. An outage
 *       ({@code LockUnavailableException}) is never skipped.</li>
 *   <li>While the method runs, {@code Lease.current()} is its lease; the lease is released when it returns
 *       or throws.</li>
 *   <li>A method returning {@code CompletableFuture} or {@code CompletionStage} keeps its locks until the
 *       returned future completes: its lease is detached from the calling thread when the method returns
 *       and released on completion (at once if the method throws or returns {@code null}). The caller gets a
 *       new future that completes with the same value or exception once the locks are released, so that
 *       code which continues from it never finds its own locks still held. Cancelling that future does not
 *       release the locks early: they stay held until the method's own future completes.</li>
 *   <li>A method returning Reactor's {@code Mono} or {@code Flux} gets a publisher of the same kind back that takes
 *       the keys on each subscription, off the subscriber's thread, runs the method and its publisher under them,
 *       and releases them when that publisher completes, errors or is cancelled ({@link ReactiveLockedCalls}).</li>
 *   <li>The wait for the keys is observed ({@link CallObservations}: an Observation {@code locks.acquire} when
 *       the application has an {@code ObservationRegistry}), and the registry's events of that acquire carry the
 *       method's name ({@link CallNames}), the {@code name} tag of the meters.</li>
 * </ul>
 */
public class LockedInterceptor implements MethodInterceptor {

    private static final Log logger = LogFactory.getLog(LockedInterceptor.class);

    private final LockedOperationSource operations;

    private final Supplier<LockRegistry> registry;

    private final Supplier<CallObservations> observations;

    /** Without observations. */
    public LockedInterceptor(LockedOperationSource operations, Supplier<LockRegistry> registry) {
        this(operations, registry, () -> CallObservations.NONE);
    }

    /**
     * @param registry looked up on the first call and kept, so that the interceptor can be created before
     *        the registry
     * @param observations looked up on the first call and kept, as the registry is
     */
    public LockedInterceptor(LockedOperationSource operations, Supplier<LockRegistry> registry,
            Supplier<CallObservations> observations) {
        this.operations = operations;
        this.registry = registry;
        this.observations = observations;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        LockedOperation operation = operations.operation(invocation);
        if (operation == null) {
            return invocation.proceed();
        }
        LockRegistry locks = registry.get();
        List<String> keys = operation.keys(invocation);
        AcquireOptions options = operation.options(locks.defaultOptions());
        if (operation.reactive()) {
            return ReactiveLockedCalls.locked(invocation, operation, locks, keys, options, observations.get());
        }
        Lease lease = acquire(operation, locks, keys, options, observations.get());
        if (lease == null) {
            return operation.skipped();
        }
        return operation.async() ? proceedAsync(invocation, lease) : proceed(invocation, lease);
    }

    /**
     * Takes the call's keys, observed and under the method's name; {@code null} when the call skips (its keys were
     * not taken within its wait and its {@code onTimeout} is {@code skip}). Blocking: the reactive calls run it off
     * the subscriber's thread.
     */
    static Lease acquire(LockedOperation operation, LockRegistry locks, List<String> keys, AcquireOptions options,
            CallObservations observations) throws Throwable {
        String previous = CallNames.enter(operation.tagName());
        if (operation.skips()) {
            CallNames.skipping(true);
        }
        try {
            return observations.observe(CallObservations.ACQUIRE, operation.tagName(), locks.backend(),
                    () -> operation.skips() ? acquireOrSkip(operation, locks, keys, options)
                            : locks.acquire(keys, options));
        }
        finally {
            if (operation.skips()) {
                CallNames.skipping(false);
            }
            CallNames.restore(previous);
        }
    }

    private static Lease acquireOrSkip(LockedOperation operation, LockRegistry locks, List<String> keys,
            AcquireOptions options) {
        try {
            return locks.acquire(keys, options);
        }
        catch (LockTimeoutException ex) {
            skipped(operation, ex);
            return null;
        }
    }

    /** Logs, at DEBUG only, that a call skips its method since its keys were not taken within its wait. */
    static void skipped(LockedOperation operation, LockTimeoutException timeout) {
        if (logger.isDebugEnabled()) {
            logger.debug("Skipped " + operation.tagName() + " (onTimeout = skip): " + timeout.getMessage());
        }
    }

    private static Object proceed(MethodInvocation invocation, Lease lease) throws Throwable {
        try (lease; Lease.CurrentScope scope = Lease.makeCurrent(lease)) {
            return invocation.proceed();
        }
    }

    private static Object proceedAsync(MethodInvocation invocation, Lease lease) throws Throwable {
        CompletionStage<?> stage;
        try (Lease.CurrentScope scope = Lease.makeCurrent(lease)) {
            stage = (CompletionStage<?>) invocation.proceed();
        }
        catch (Throwable ex) {
            lease.close();
            throw ex;
        }
        if (stage == null) {
            lease.close();
            return null;
        }
        lease.detach();
        CompletableFuture<Object> released = new CompletableFuture<>();
        stage.whenComplete((value, error) -> {
            lease.close();
            if (error == null) {
                released.complete(value);
            }
            else {
                released.completeExceptionally(error);
            }
        });
        return released;
    }
}
