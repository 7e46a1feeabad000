package dev.locks.spi;

import dev.locks.LocksException;

/**
 * A {@link RemoteLockStore} could not make a call within the caller's wait because its own resources were all in
 * use by other calls of the node (every one of a JDBC node's connections busy, say), while the store itself still
 * answered: a busy node, not an outage. Nothing was sent, so nothing is taken or changed. The engine counts it as an
 * attempt that found its keys unavailable: once the caller's wait has run out, it ends in a
 * {@link dev.locks.LockTimeoutException} (or an empty {@code tryAcquire}) whose message is this one's, never in a
 * {@link dev.locks.LockUnavailableException}.
 *
 * <p>Thrown only by the calls that take the caller's wait: {@link RemoteLockStore#tryAcquire(java.util.List,
 * RemoteLockStore.Owner, long, RemoteLockStore.Ticket, long)}, {@link RemoteLockStore#enqueue(java.util.List,
 * RemoteLockStore.Ticket, long)} and {@link RemoteLockStore#dequeue(java.util.List, String, long)}.
 */
public class StoreBusyException extends LocksException {

    private static final long serialVersionUID = 1L;

    /** @param message what was busy, for how long, and which setting gives it more room */
    public StoreBusyException(String message) {
        super(message);
    }
}
