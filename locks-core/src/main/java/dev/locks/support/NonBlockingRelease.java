package dev.locks.support;

/**
 * Marks a {@link dev.locks.LockRegistry} whose leases release without blocking: closing one does no I/O and waits
 * for nothing (the in-memory registry's release is a few map operations), so an integration may close it on
 * whatever thread it is on, an event loop's included. The Spring Boot starter's {@code @Locked} on a {@code Mono}
 * or {@code Flux} releases such a registry's leases where the publisher ends, and any other's on Reactor's
 * bounded-elastic scheduler.
 */
public interface NonBlockingRelease {
}
