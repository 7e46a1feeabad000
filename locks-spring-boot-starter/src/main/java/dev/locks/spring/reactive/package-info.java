/**
 * {@link dev.locks.annotation.Locked} on methods returning Reactor's {@code Mono} and {@code Flux}: the
 * lease of a running publisher is in its Reactor context ({@link dev.locks.spring.reactive.ReactiveLease}).
 * Used only when the application has Reactor (an optional dependency of the starter).
 */
package dev.locks.spring.reactive;
