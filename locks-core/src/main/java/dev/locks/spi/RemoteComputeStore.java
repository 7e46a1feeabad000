package dev.locks.spi;

import java.time.Duration;
import java.time.Instant;

/**
 * The shared storage of fetch-or-compute across nodes (Redis, SQL): the values, as bytes, and one record per key of
 * the miss being computed, which is also that miss's compute lock. Each node's callers of a key first meet in the
 * node's memory; one of them (the node's representative) talks to the store for all of them. Who computes, who
 * waits, who takes over a stalled computer, which result counts, and when a waiter looks again all live once, in
 * the core; so do the values' serialization (the cache's serializer), what a stored value that cannot be read
 * means (a miss), and the form of notices: the store offers the atomic steps below, on bytes and text it stores,
 * compares and publishes as they are.
 *
 * <p><b>Data.</b> Per key (passed without any storage prefix; the store applies its own):
 * <ul>
 *   <li>its <em>value</em>, bytes, expiring after its TTL by the store's clock ({@link Duration#ZERO}: never);</li>
 *   <li>its <em>miss record</em>, at most one: a {@link Miss} (id, turn, first hint, TTL) with its current
 *       computer (id, description, when it took its turn by the store's clock) and a state, <em>computing</em>
 *       or <em>done</em> (with how it ended: a value, a {@code null} result, or a failure's class name and
 *       message). While computing, the record expires after the current computer's compute timeout: that
 *       expiry is the compute lock, whose end lets a waiter take over. Once done, it stays for a grace period
 *       of a few seconds (Redis: 5 s), so that a waiter whose notice was lost still learns a {@code null}
 *       result or a failure by claiming again; a value whose TTL is shorter than that grace period is kept in the
 *       done record too, so that a waiter that reads only after the value expired still gets it;</li>
 *   <li>its <em>invalidated miss</em>, at most one: the record of a miss that was computing when the key was
 *       {@linkplain #invalidate invalidated}, set aside with its compute lock's expiry. Only the callers that
 *       wait for that miss see it again (by its id); its completion stores no value but keeps it in the record,
 *       for the grace period, for those waiters ({@link #invalidatedValue}).</li>
 * </ul>
 *
 * <p><b>Atomicity.</b> {@link #claim}, {@link #complete}, {@link #fail}, {@link #invalidate} and {@link #discard}
 * each read and change a key's value and records in one indivisible step on the server (a Lua script on Redis; one
 * statement or function in one transaction on SQL), with the server's clock for every expiry and timestamp:
 * no other node's step on that key can come between their reads and their writes. Where a method is given a
 * notice, the notice goes out with the step (a notice of a change that did not happen, or a change whose notice
 * is never sent while the store stays reachable, is a bug); each should cost one round trip.
 *
 * <p><b>Values.</b> The core hands the store the bytes of a value and gets them back as they were; it never asks
 * the store to read them. When the core cannot read the bytes of a value (corrupt, a class renamed or refused), it
 * treats the value as missing and removes it with {@link #discard}, only if it is still those bytes.
 *
 * <p><b>Notices.</b> The core frames each {@link Notice} as text (within {@link #maxNoticeBytes()}), which the store
 * publishes to every node as it is, and hands back to the core whole, as it was published
 * ({@link Listener#noticed}); the core parses it.
 *
 * <p><b>Failures.</b> Every method that talks to the server throws {@link dev.locks.LockUnavailableException},
 * naming what failed, when the server cannot be reached or does not answer in time; a step that failed so
 * may or may not have happened (the core copes with both: records expire). A method must give the same answers
 * whatever the calling thread's interrupt status (a thread interrupted while waiting still stores the value it
 * computed).
 *
 * <p>Thread-safe: every node calls it from many threads at once, and from its notice thread. The contract tests
 * every store passes are {@code dev.locks.contract.RemoteComputeStoreContract} (module {@code locks-test}).
 */
public interface RemoteComputeStore extends AutoCloseable {

    /** The bytes of the stored, unexpired value of {@code key}, or {@code null}. One read. */
    byte[] get(String key);

    /**
     * Removes the value of {@code key} if it is still {@code stored} (byte for byte), in one atomic step: the core
     * could not read it. A value written meanwhile stays.
     *
     * @return whether it removed it
     */
    boolean discard(String key, byte[] stored);

    /**
     * In one atomic step: removes the value of {@code key} and, if its miss record is <em>computing</em>, sets
     * that record aside as the key's invalidated miss (replacing any earlier one; keeping its compute lock's
     * expiry) and publishes {@code notice}. A later {@link #claim} without that miss as {@code awaited} finds no
     * record and starts a new miss; the invalidated miss still accepts its computers' {@link #complete} and
     * {@link #fail}, and claims that await it. Nothing is published when no miss was computing.
     *
     * @param notice the framed {@link Notice#invalidated} notice
     */
    void invalidate(String key, String notice);

    /**
     * The bytes with which the key's invalidated miss {@code missId} completed, as {@link #complete} kept them in
     * that record (for the grace period); {@code null} if the record is gone, is another miss's, or holds no
     * value. One read, for the waiters of other nodes after a {@link Notice.Outcome#UNSTORED} notice.
     */
    byte[] invalidatedValue(String key, String missId);

    /**
     * A node's representative, which has just missed {@code key}, looks it up once more and becomes the
     * computer of its miss or learns whom to wait for; in one atomic step, the first rule that applies:
     * <ol>
     *   <li>a value is stored (an unexpired one; for a {@linkplain Claimant#refresh() refresh}, one written less
     *       than {@link Claimant#refreshAfter()} ago): {@link Claim.Hit} with its bytes (the core discards them
     *       and claims again if it cannot read them);</li>
     *   <li>{@code awaited} is given and is the key's invalidated miss: while that record is computing,
     *       {@link Claim.Wait} for it; once done, {@link Claim.Done} with how it ended (its value, kept in the
     *       record, as {@link Notice.Outcome#UNSTORED} with its bytes);</li>
     *   <li>the key's miss record is computing: {@link Claim.Wait} for it (the {@code awaited} turn or not);</li>
     *   <li>the record is done and is {@code awaited}'s with a {@code null} result or a failure: {@link Claim.Done}
     *       with it; with a value kept in the record (its TTL was shorter than the grace period, and it expired):
     *       {@link Claim.Done} with {@link Notice.Outcome#UNSTORED} and those bytes;</li>
     *   <li>there is no record and {@code awaited} is given (its computer's compute lock expired, nobody
     *       finished): the claimant takes over that miss in the next turn, {@code awaited.turn() + 1}, with
     *       {@code awaited}'s id, hint and TTL: {@link Claim.Compute};</li>
     *   <li>otherwise (no record, or a done one whose value is gone or that is not the awaited miss): a new miss
     *       {@code claimant.newMiss()}, turn 0, with the claimant's hint and TTL: {@link Claim.Compute}.</li>
     * </ol>
     * Taking a turn (rules 5 and 6) replaces the miss record with a computing one of that miss, turn and
     * claimant ({@link Claimant#computer()}, {@link Claimant#description()}, the server's time now), expiring
     * after {@link Claimant#computeTimeout()}; {@link Claim.Compute#ticket()} is
     * {@code Ticket(miss id, turn, claimant.computer())}.
     *
     * @param awaited the miss the claimant waited for, as its last {@link Claim.Wait} or {@link Claim.Compute}
     *        gave it (the turn it last saw), or {@code null}
     */
    Claim claim(String key, Claimant claimant, Miss awaited);

    /**
     * Settles the ticket's miss with {@code completion}'s value, if this is the first completion of that miss from
     * any of its computers (the current one, or one whose turn timed out: its {@link Ticket#turn()} and
     * {@link Ticket#computer()} do not matter). In one atomic step:
     * <ul>
     *   <li>if the key's miss record is {@code ticket.miss()}'s and computing: stores the value unless it is
     *       {@code null}, with the completion's TTL, marks the record done (value or {@code null} result, kept for
     *       the grace period; a value whose TTL is shorter than the grace period kept in it too, its bytes), and
     *       publishes {@link Completion#notice()}: true. When the completion
     *       {@linkplain Completion#fresh() keeps fresh-value data} and stores the value: records its write time
     *       (for {@link #entry}'s age and {@link Claimant#refreshAfter()}), keeps it readable as stale by
     *       {@link #entry} for {@link Completion#staleIfError()} after its TTL, and ends the key's error
     *       back-off; a store without them ignores it;</li>
     *   <li>else if the key's invalidated miss is {@code ticket.miss()}'s and computing: stores no value, marks
     *       that record done keeping the value in it for the grace period, and publishes
     *       {@link Completion#unstoredNotice()}: true;</li>
     *   <li>else (the miss is over or unknown): false, changing and publishing nothing.</li>
     * </ul>
     *
     * @return whether this completion settled the miss
     */
    boolean complete(String key, Ticket ticket, Completion completion);

    /**
     * Ends the ticket's miss with a failure, if the ticket is its current computer's. In one atomic step: if
     * the key's miss record, or else its invalidated miss, is {@code ticket.miss()}'s, computing, and its current
     * computer is {@code ticket.computer()}, marks it done with {@code className} and {@code message} (kept for
     * the grace period; a message that is {@code null} stays {@code null}) and publishes {@code notice}: true.
     * Else (a computer whose turn timed out, a miss that is over or unknown): false, changing and publishing
     * nothing. Nothing is ever stored.
     *
     * @param notice the framed {@link Notice#failed} notice
     */
    boolean fail(String key, Ticket ticket, String className, String message, String notice);

    /**
     * The value of {@code key} for a call with refresh-ahead or stale-if-error (section 11), in one read: the
     * stored, unexpired value with its age (since a fresh {@link #complete} wrote it, by the store's clock), or
     * else its <em>stale</em> value (past its TTL, within the stale window it was stored with), and whether the
     * key's error back-off ({@link #backOff}) runs. {@code null} when there is neither value.
     *
     * <p>By default {@link #get} as a value of age 0, never stale, never backing off: a store that keeps no write
     * times nor stale values offers neither refresh-ahead nor stale-if-error.
     */
    default Entry entry(String key) {
        byte[] value = get(key);
        return value == null ? null : new Entry(value, 0L, false, false);
    }

    /**
     * Starts the error back-off of {@code key} for {@code backOff}, shared by every node, unless one is running: in
     * one atomic step. While it runs, {@link #entry} reports it; a completion or {@link #invalidate} ends it.
     *
     * @return whether this call started it; by default false, and nothing is kept (no back-off across nodes)
     */
    default boolean backOff(String key, Duration backOff) {
        return false;
    }

    /**
     * The longest notice, in bytes of UTF-8, that this store can publish: the core shortens a failure's message,
     * then its class name, to fit (a notice whose key alone does not fit goes out without key, and other nodes
     * drop it). By default no limit.
     */
    default int maxNoticeBytes() {
        return Integer.MAX_VALUE;
    }

    /**
     * A value as {@link #entry} reads it.
     *
     * @param value its bytes, never {@code null}
     * @param ageMillis how long ago it was written, by the store's clock (0 when unknown)
     * @param stale whether it is past its TTL, readable only for stale-if-error
     * @param backingOff whether the key's error back-off runs
     */
    record Entry(byte[] value, long ageMillis, boolean stale, boolean backingOff) {
    }

    /**
     * What {@link #complete} writes.
     *
     * @param value the value's bytes; {@code null} for a {@code null} result (nothing stored)
     * @param ttl the value's TTL; {@code null}: the TTL the miss began with; {@link Duration#ZERO}: no expiry
     * @param fresh whether to keep the value's write time, its stale copy and end the error back-off (a call with
     *        refresh-ahead or stale-if-error)
     * @param staleIfError for a fresh completion, how long the value stays readable as stale after its TTL
     *        ({@link Duration#ZERO}: not at all)
     * @param notice the framed {@link Notice#completed} notice, published when it settles the key's miss
     * @param unstoredNotice the framed {@link Notice#completedInvalidated} notice, published when it settles the
     *        key's invalidated miss
     */
    record Completion(byte[] value, Duration ttl, boolean fresh, Duration staleIfError, String notice,
            String unstoredNotice) {
    }

    /**
     * Starts delivering every notice that any node publishes (this one included: the core drops its own) to
     * {@code listener}, through one subscription for the whole node, never one per key. The core calls it once, as
     * its node starts, before any other method. The server need not be reachable yet: the store subscribes in the
     * background and again after an outage. Notices may be lost meanwhile (the core's waiters also look again by
     * themselves, once a poll interval), but each one delivered is delivered whole, once, on a thread of the
     * store's (never the client's I/O thread: the listener calls {@link #get} on it).
     */
    void subscribe(Listener listener);

    /** Ends the subscription. The store's connections (the application's) stay open. */
    @Override
    void close();

    /** Hears, on behalf of the node, the notices the store receives. */
    @FunctionalInterface
    interface Listener {

        /** A notice, as it was published (framed text); the core ignores one that is not well formed. */
        void noticed(String notice);
    }

    /**
     * Who claims a miss, and on what terms it would start one or take a turn.
     *
     * @param computer a new computer id, unique across nodes: the current computer's, should it take a turn
     * @param description readable: the claimant's thread and node, shown to other nodes' operations
     * @param computeTimeout how long its compute lock lasts, should it take a turn (at least 1 ms)
     * @param newMiss the id of the miss to start, unique across nodes, should there be none to wait for or take
     *        over
     * @param hint the claimant's hint, for a miss it starts
     * @param ttl the claimant's TTL, for a miss it starts ({@link Duration#ZERO}: no expiry)
     * @param refreshAfter for a background refresh (section 11): a stored value written at least this long ago
     *        counts as missing for this claim (rule 1), so that the claimant recomputes it; {@link Duration#ZERO}
     *        for an ordinary claim. A store that keeps no write times treats every value as young.
     */
    record Claimant(String computer, String description, Duration computeTimeout, String newMiss, String hint,
            Duration ttl, Duration refreshAfter) {

        /** An ordinary claim, not a refresh. */
        public Claimant(String computer, String description, Duration computeTimeout, String newMiss, String hint,
                Duration ttl) {
            this(computer, description, computeTimeout, newMiss, hint, ttl, Duration.ZERO);
        }

        /** Whether this claim is a background refresh's. */
        public boolean refresh() {
            return !refreshAfter.isZero();
        }
    }

    /**
     * One miss of a key across all nodes, as the store reported it: what a waiter needs in order to take the
     * turn of a computer that timed out.
     *
     * @param id unique across nodes
     * @param turn 0 for the miss's first computer, then 1, 2, ... for each computer that took over
     * @param hint the first computer's hint, handed to every computer that takes over
     * @param ttlMillis the TTL the miss began with (0: no expiry), for a completion that gives none
     */
    record Miss(String id, int turn, String hint, long ttlMillis) {
    }

    /**
     * One computer's turn of a miss: what a {@link dev.locks.ComputeTicket} of a remote cache names, so that it
     * works on any node.
     *
     * @param miss the miss id
     * @param turn 0 for the first computer, more for one that took over
     * @param computer the computer id, unique across nodes
     */
    record Ticket(String miss, int turn, String computer) {

        /** Whether this computer took over from a computer that timed out. */
        public boolean promoted() {
            return turn > 0;
        }
    }

    /** What a {@link #claim} found. */
    sealed interface Claim {

        /** The value is stored after all: its bytes. */
        record Hit(byte[] value) implements Claim {
        }

        /** The claimant is the miss's computer now: its first, or one taking over with the first hint. */
        record Compute(Miss miss, Ticket ticket) implements Claim {
        }

        /**
         * Another computer holds the miss.
         *
         * @param pttlMillis in how many milliseconds its compute lock ends unless the miss ends first, by the
         *        server's clock; negative when unknown (the waiter then looks again after its poll interval)
         * @param computer that computer's {@link Claimant#description()}
         * @param startedAt when it took its turn, by the server's clock
         */
        record Wait(Miss miss, long pttlMillis, String computer, Instant startedAt) implements Claim {
        }

        /**
         * The awaited miss is over, as its record tells it: {@link Notice.Outcome#NULL} for a {@code null} result;
         * {@link Notice.Outcome#FAILED} with the failure's class name and message; or, for an invalidated miss,
         * {@link Notice.Outcome#UNSTORED} with its value's bytes (or {@link Notice.Outcome#NULL}), and for a miss
         * whose short-lived value expired before the claim, {@link Notice.Outcome#UNSTORED} with the bytes its
         * record kept.
         *
         * @param value the bytes of an {@link Notice.Outcome#UNSTORED} value, else {@code null}
         */
        record Done(Notice.Outcome outcome, byte[] value, String className, String message) implements Claim {
        }
    }

    /**
     * What the core publishes through the store, to every node, when a miss ends or a key is invalidated during
     * one (framed as text by the core: the store never reads it).
     *
     * @param node the id of the node whose step published it
     * @param miss the miss id; {@code ""} for {@link Outcome#INVALIDATED}
     * @param className for {@link Outcome#FAILED}, the exception's class name; else {@code null}
     * @param message for {@link Outcome#FAILED}, the exception's message, {@code null} when it had none
     */
    record Notice(String node, String key, String miss, Outcome outcome, String className, String message) {

        /** The notice of {@link #complete}: {@link Outcome#VALUE}, or {@link Outcome#NULL} for a null result. */
        public static Notice completed(String node, String key, String miss, boolean isNull) {
            return new Notice(node, key, miss, isNull ? Outcome.NULL : Outcome.VALUE, null, null);
        }

        /** The notice of {@link #complete} of an invalidated miss: nothing was stored. */
        public static Notice completedInvalidated(String node, String key, String miss, boolean isNull) {
            return new Notice(node, key, miss, isNull ? Outcome.NULL : Outcome.UNSTORED, null, null);
        }

        /** The notice of {@link #fail}. */
        public static Notice failed(String node, String key, String miss, Throwable error) {
            return new Notice(node, key, miss, Outcome.FAILED, error.getClass().getName(), error.getMessage());
        }

        /** The notice of {@link #invalidate}. */
        public static Notice invalidated(String node, String key) {
            return new Notice(node, key, "", Outcome.INVALIDATED, null, null);
        }

        /** How a miss ended, or what happened to the key. */
        public enum Outcome {
            /** Completed with a value, which is stored: read it with {@link RemoteComputeStore#get}. */
            VALUE,
            /** Completed with a {@code null} result, stored nowhere. */
            NULL,
            /** Failed, with {@link Notice#className()} and {@link Notice#message()}. */
            FAILED,
            /**
             * Completed with a value after the key was invalidated: not stored; read it with
             * {@link RemoteComputeStore#invalidatedValue} (for the grace period).
             */
            UNSTORED,
            /** The key was invalidated while a miss of it was computing: later callers start a new miss. */
            INVALIDATED
        }
    }
}
