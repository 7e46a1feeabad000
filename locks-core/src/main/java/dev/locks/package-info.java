/**
 * The locks API: keyed locks ({@link dev.locks.LockRegistry}, {@link dev.locks.Lease}) and
 * fetch-or-compute with stampede protection ({@link dev.locks.ComputeCache}).
 *
 * <p>Backends: {@code dev.locks.local} (in-memory, one JVM) and {@code dev.locks.redis} (several JVMs).
 * Keys are non-blank strings; several keys are always taken all-or-nothing, in natural {@code String}
 * order, so that two callers never deadlock.
 */
package dev.locks;
