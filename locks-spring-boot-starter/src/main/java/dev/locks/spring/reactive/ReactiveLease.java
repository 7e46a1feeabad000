package dev.locks.spring.reactive;

import dev.locks.Lease;
import java.util.Objects;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The reactive counterpart of {@link Lease#current()}: the lease of the {@code @Locked} {@code Mono} or
 * {@code Flux} a publisher runs in, carried in the Reactor context (a publisher has no thread of its own, so a
 * thread-bound lookup cannot find it).
 *
 * <pre>{@code
 * @Locked(keys = "'account:' + #id")
 * public Mono<Receipt> debit(long id, long cents) {
 *     return ReactiveLease.current()
 *             .flatMap(lease -> ledger.write(id, cents, lease.fencingToken()));
 * }
 * }</pre>
 *
 * <p>In a Kotlin {@code suspend} function or {@code Flow} under {@code @Locked}, await it:
 * {@code ReactiveLease.current().awaitSingle()} (kotlinx-coroutines-reactor's {@code awaitSingle} subscribes with the
 * coroutine's {@code ReactorContext}, where the lease is).
 */
public final class ReactiveLease {

    /** The key of the lease in the Reactor context; private, so that only {@link #context} puts one there. */
    private static final Object KEY = new Object() {
        @Override
        public String toString() {
            return "dev.locks.Lease";
        }
    };

    private ReactiveLease() {
    }

    /**
     * The innermost lease of the {@code @Locked} publisher that subscribes to the returned {@code Mono}; empty
     * outside one. Read on subscription, from the subscriber's context.
     */
    public static Mono<Lease> current() {
        return Mono.deferContextual(context -> Mono.justOrEmpty(context.<Lease>getOrEmpty(KEY)));
    }

    /**
     * A context that makes {@code lease} the current one of the publishers upstream of
     * {@code contextWrite(ReactiveLease.context(lease))}: for code that takes a lease with
     * {@code LockRegistry.acquire} and hands it to reactive work itself.
     */
    public static Context context(Lease lease) {
        return Context.of(KEY, Objects.requireNonNull(lease, "lease"));
    }
}
