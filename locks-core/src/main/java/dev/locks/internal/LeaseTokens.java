package dev.locks.internal;

/**
 * Decides every lease's fencing token, in this one place. A lease that took any key gets a new token, greater
 * than every earlier token of each of its keys, and so do the entries it created: from this JVM's striped
 * counters in memory, or the token the remote store issued when it took the new keys (every key of a lease
 * that is new in the table is new in the store). A lease that only re-entered keys its thread holds gets the
 * highest token of the leases holding them, and no new one.
 */
final class LeaseTokens {

    private final FencingTokens counters = new FencingTokens();

    /** The token of a one-key lease that took its key (re-entry goes through a {@link TableLease}). */
    long issue(String key) {
        return counters.issue(key);
    }

    /** A new token for a lease on these keys (a shared or counted lease that took any of them). */
    long issue(String[] keys) {
        return counters.issue(keys);
    }

    /**
     * Settles {@code lease}'s token once it holds every key. {@code lease.token} is, until then, the token a
     * remote store issued for the keys it newly took there, or 0 (in memory, or when no key was new).
     */
    void settle(TableLease lease) {
        boolean tookAny = false;
        long highest = 0;
        for (LockEntry entry : lease.entries) {
            if (entry.createdBy(lease)) {
                tookAny = true;
            } else {
                highest = Math.max(highest, entry.token());
            }
        }
        if (!tookAny) {
            lease.token = highest;
            return;
        }
        long token = lease.token != 0 ? lease.token : counters.issue(lease.keys);
        for (LockEntry entry : lease.entries) {
            if (entry.createdBy(lease)) {
                entry.token(token);
            }
        }
        lease.token = token;
    }
}
