/**
 * The service-provider interface for distributed backends: the small set of primitives a shared store
 * offers (take these keys for this owner with this lease, release, renew, list), while ordering,
 * re-entry, waiting, retries, stale cleanup and the watchdog live once, in the core's lock engine; and, for
 * fetch-or-compute across nodes, {@link dev.locks.spi.RemoteComputeStore} (get, claim, complete, fail,
 * invalidate, discard, one subscription to notices, on values as bytes and notices as text), while the node-local
 * single flight, waiting, taking over, polling, serialization (a {@link dev.locks.spi.ValueSerializer}), unreadable
 * values and the form of notices live once in the core.
 */
package dev.locks.spi;
