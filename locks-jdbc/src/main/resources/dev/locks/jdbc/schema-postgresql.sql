-- The schema of dev.locks:locks-jdbc on PostgreSQL (10 or later; tested on 15): one table, one sequence, five functions.
--
-- Every name starts with the table prefix, locks_ by default (locks.jdbc.table-prefix). Run as is for the
-- default prefix; for another one replace every "locks_" in this file by it (JdbcLockRegistry's
-- initializeSchema does that itself). The script is idempotent: it may run at every start.
--
-- Time is the database's (clock_timestamp()), never a node's: a lock is live while expires_at lies in the
-- future, and every expiry is decided here. A lock is never written without expiry: an infinite lock timeout
-- is a lease that its node keeps renewing (infinite = true only says how to show it).
--
-- One function call = one round trip, one transaction of its own, whatever the number of keys. Rows are
-- locked in key order (COLLATE "C") by every function, so two calls never deadlock each other.

CREATE SEQUENCE IF NOT EXISTS locks_fencing AS bigint;

CREATE TABLE IF NOT EXISTS locks_lock (
    lock_key    text COLLATE "C" PRIMARY KEY,
    owner_id    text        NOT NULL,
    owner_desc  text        NOT NULL,
    token       bigint      NOT NULL,
    acquired_at timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    infinite    boolean     NOT NULL DEFAULT false,
    -- set by an acquire that found the key held: its release notifies (else nobody waits, nothing is sent)
    waited      boolean     NOT NULL DEFAULT false
);

CREATE INDEX IF NOT EXISTS locks_lock_expires_at ON locks_lock (expires_at);

-- Takes every key for p_owner, all or none. Returns the fencing token (> 0), or -i when the i-th key
-- (1-based) is held by someone else; that key is then marked as waited for.
CREATE OR REPLACE FUNCTION locks_acquire(p_keys text[], p_owner text, p_desc text, p_lease_ms bigint,
        p_infinite boolean) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_now   timestamptz := clock_timestamp();
    v_token bigint := nextval('locks_fencing');
    v_taken int;
    v_held  bigint;
BEGIN
    INSERT INTO locks_lock AS l (lock_key, owner_id, owner_desc, token, acquired_at, expires_at, infinite)
    SELECT k, p_owner, p_desc, v_token, v_now, v_now + p_lease_ms * interval '1 millisecond', p_infinite
    FROM unnest(p_keys) AS k
    ORDER BY k COLLATE "C"
    ON CONFLICT (lock_key) DO UPDATE
        SET owner_id = excluded.owner_id, owner_desc = excluded.owner_desc, token = excluded.token,
            acquired_at = excluded.acquired_at, expires_at = excluded.expires_at, infinite = excluded.infinite
        WHERE l.expires_at <= v_now OR l.owner_id = p_owner; -- the same owner again: a retried call
    GET DIAGNOSTICS v_taken = ROW_COUNT;
    IF v_taken = cardinality(p_keys) THEN
        RETURN v_token;
    END IF;
    -- not all: take nothing (the rows stay locked by this transaction until it ends, a moment from now)
    DELETE FROM locks_lock WHERE lock_key = ANY (p_keys) AND owner_id = p_owner;
    SELECT u.i INTO v_held
    FROM unnest(p_keys) WITH ORDINALITY AS u(k, i) JOIN locks_lock l ON l.lock_key = u.k
    ORDER BY u.i LIMIT 1;
    IF v_held IS NULL THEN
        RETURN -1; -- freed meanwhile: the caller tries again
    END IF;
    UPDATE locks_lock SET waited = true WHERE lock_key = p_keys[v_held] AND NOT waited;
    RETURN -v_held;
END $$;

-- Releases each key that its owner still holds and notifies those someone waits for. Returns the 1-based
-- positions of the keys their owner no longer held (expired or taken).
CREATE OR REPLACE FUNCTION locks_release(p_keys text[], p_owners text[]) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
    v_now  timestamptz := clock_timestamp();
    v_live text[] := '{}';
    r      record;
BEGIN
    FOR r IN
        DELETE FROM locks_lock d
        WHERE d.lock_key IN (
            SELECT l.lock_key FROM locks_lock l JOIN unnest(p_keys, p_owners) AS u(k, o)
                ON l.lock_key = u.k AND l.owner_id = u.o
            ORDER BY l.lock_key FOR UPDATE OF l)
        RETURNING d.lock_key, d.waited, d.expires_at > v_now AS live
    LOOP
        IF r.waited THEN
            PERFORM pg_notify('locks_released', r.lock_key);
        END IF;
        IF r.live THEN
            v_live := v_live || r.lock_key;
        END IF;
    END LOOP;
    RETURN ARRAY(SELECT u.i::int FROM unnest(p_keys) WITH ORDINALITY AS u(k, i) WHERE NOT (u.k = ANY (v_live)));
END $$;

-- Extends the lease of each key its owner still holds and that has not run out (an expired lock is never
-- revived). Returns the 1-based positions of the keys their owner no longer held.
CREATE OR REPLACE FUNCTION locks_renew(p_keys text[], p_owners text[], p_lease_ms bigint[]) RETURNS int[]
        LANGUAGE plpgsql AS $$
DECLARE
    v_now     timestamptz := clock_timestamp();
    v_renewed text[];
BEGIN
    WITH mine AS (
        SELECT l.lock_key, u.ms FROM locks_lock l JOIN unnest(p_keys, p_owners, p_lease_ms) AS u(k, o, ms)
            ON l.lock_key = u.k AND l.owner_id = u.o AND l.expires_at > v_now
        ORDER BY l.lock_key FOR UPDATE OF l
    ), renewed AS (
        UPDATE locks_lock l SET expires_at = v_now + mine.ms * interval '1 millisecond'
        FROM mine WHERE l.lock_key = mine.lock_key
        RETURNING l.lock_key
    )
    SELECT coalesce(array_agg(lock_key), '{}') INTO v_renewed FROM renewed;
    RETURN ARRAY(SELECT u.i::int FROM unnest(p_keys) WITH ORDINALITY AS u(k, i) WHERE NOT (u.k = ANY (v_renewed)));
END $$;

-- Removes whatever holds p_key and notifies every node; whether there was a lock.
CREATE OR REPLACE FUNCTION locks_force_release(p_key text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_found boolean;
BEGIN
    DELETE FROM locks_lock WHERE lock_key = p_key RETURNING true INTO v_found;
    PERFORM pg_notify('locks_released', p_key);
    RETURN coalesce(v_found, false);
END $$;

-- Deletes up to p_limit expired locks (a crashed node's, say; they no longer block anyone) and notifies
-- those someone waits for. Returns how many.
CREATE OR REPLACE FUNCTION locks_purge(p_limit int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    v_count int := 0;
    r       record;
BEGIN
    FOR r IN
        DELETE FROM locks_lock d
        WHERE d.lock_key IN (
            SELECT l.lock_key FROM locks_lock l WHERE l.expires_at <= clock_timestamp()
            ORDER BY l.lock_key LIMIT p_limit FOR UPDATE SKIP LOCKED)
          AND d.expires_at <= clock_timestamp()
        RETURNING d.lock_key, d.waited
    LOOP
        v_count := v_count + 1;
        IF r.waited THEN
            PERFORM pg_notify('locks_released', r.lock_key);
        END IF;
    END LOOP;
    RETURN v_count;
END $$;
