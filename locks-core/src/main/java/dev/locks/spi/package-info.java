/**
 * The service-provider interface for distributed backends: the small set of primitives a shared store
 * offers (take these keys for this owner with this lease, release, renew, list), while ordering,
 * re-entry, waiting, retries, stale cleanup and the watchdog live once, in the core's lock engine.
 */
package dev.locks.spi;
