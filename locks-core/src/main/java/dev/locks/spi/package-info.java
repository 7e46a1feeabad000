/**
 * The service-provider interface for distributed backends: the small set of primitives a shared store
 * offers (take these keys for this owner with this lease, release, renew, list), while ordering,
 * re-entry, waiting, retries, stale cleanup and the watchdog live once, in the core's lock engine; and, for
 * fetch-or-compute across nodes, {@link dev.locks.spi.RemoteComputeStore} (get, claim, complete, fail,
 * invalidate, one subscription to notices), while the node-local single flight, waiting, taking over and
 * polling live once in the core.
 */
package dev.locks.spi;
