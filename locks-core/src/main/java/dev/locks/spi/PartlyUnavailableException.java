package dev.locks.spi;

import dev.locks.LockUnavailableException;
import java.util.Set;

/**
 * A {@link RemoteLockStore} spread over several servers (the shards of a Redis Cluster) reached some of a call's
 * keys and not the others: what it could do for the keys it reached is done, and only the {@link #unreached()}
 * keys are in doubt. The engine then confirms what was reached (a renewal), and retries in the background only
 * what was not (a release, a ticket's removal, or the undo of an acquire that failed part-way), so that one
 * failing shard never holds up the keys of the others.
 *
 * <p>Thrown by {@link RemoteLockStore#release}, {@link RemoteLockStore#renew} and
 * {@link RemoteLockStore#dequeue}; and by {@link RemoteLockStore#tryAcquire} when the acquire failed and could
 * not be undone on every key: the {@link #unreached()} keys may still be taken for the owner until the engine's
 * release gets through, or their lease runs out. A store on one server throws a plain
 * {@link LockUnavailableException}: every key is in doubt.
 */
public class PartlyUnavailableException extends LockUnavailableException {

    private static final long serialVersionUID = 1L;

    private final Set<String> unreached;
    private final Set<String> lost;

    /**
     * @param unreached the keys the call could not reach
     * @param lost of the keys it reached, those their owner no longer held (as {@link RemoteLockStore#release}
     *        and {@link RemoteLockStore#renew} return them)
     */
    public PartlyUnavailableException(String message, Throwable cause, Set<String> unreached, Set<String> lost) {
        super(message, cause);
        this.unreached = Set.copyOf(unreached);
        this.lost = Set.copyOf(lost);
    }

    /** The keys the call could not reach: their state in the store is unknown. */
    public Set<String> unreached() {
        return unreached;
    }

    /** Of the keys reached, those whose owner no longer held them. */
    public Set<String> lost() {
        return lost;
    }
}
