package dev.locks.internal;

import java.time.Instant;

/**
 * What a lease needs of the engine that made it: the clock its times are read on, the registry's default lock
 * timeout, and its release. A lease holds this rather than the engine, so that it can reach nothing else of it;
 * each engine makes one when it is built, so a lease costs no more than with the engine itself.
 */
interface LeaseHost {

    /** A reading of the engine's clock, to tell whether a lease still holds its keys. */
    long nanoTime();

    /** The wall-clock time of a reading of the engine's clock (see {@link LockEngine#toInstant}). */
    Instant toInstant(long nanos);

    /** The registry's default lock timeout; {@link Long#MAX_VALUE} when infinite. */
    long defaultTimeoutNanos();

    void release(SoloLease lease);

    void release(TableLease lease);

    void release(SharedLease lease);
}
