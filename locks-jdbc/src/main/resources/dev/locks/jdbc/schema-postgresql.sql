-- The schema of dev.locks:locks-jdbc on PostgreSQL (11 or later: sha256; tested on 15): the lock registry's table,
-- wait queue, shared holders, two sequences and nineteen functions, and the compute cache's two tables and four functions.
--
-- Every name starts with the table prefix, locks_ by default (locks.jdbc.table-prefix). Run as is for the
-- default prefix; for another one replace every "locks_" in this file by it (the builders' initializeSchema
-- does that itself). The script is idempotent: it may run at every start.
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

-- the key as given, when lock_key holds its digest (see locks_key); null otherwise
ALTER TABLE locks_lock ADD COLUMN IF NOT EXISTS full_key text;

CREATE INDEX IF NOT EXISTS locks_lock_expires_at ON locks_lock (expires_at);

-- A key as stored in a primary key column: the key itself, or, when it is longer than 1,000 bytes (a btree
-- index row holds at most 2,704), its first 200 characters, U+0001, 'h' and the hex SHA-256 of the whole key.
-- Keys come in escaped (U+0001 is always followed by '0' or '1' in them: see the class StoredText), so a
-- digest never equals a short key. The functions take keys as given and store them through this one.
CREATE OR REPLACE FUNCTION locks_key(p_key text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT CASE WHEN octet_length(p_key) <= 1000 THEN p_key
        ELSE left(p_key, 200) || chr(1) || 'h' || encode(sha256(convert_to(p_key, 'UTF8')), 'hex') END
$$;

-- locks_key of each key, in the same order. PL/pgSQL, as locks_queued_ahead, for its plan: a LANGUAGE sql function that
-- cannot be inlined (a subquery) is parsed and planned again in every transaction that calls it, a PL/pgSQL one
-- keeps its plans for the session (measured: a refused locks_acquire took 300-460 us a call, 110-180 us so).
CREATE OR REPLACE FUNCTION locks_keys(p_keys text[]) RETURNS text[] LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
    RETURN ARRAY(SELECT locks_key(u.k) FROM unnest(p_keys) WITH ORDINALITY AS u(k, i) ORDER BY u.i);
END $$;

-- What a release notice carries: the key as given (stored, if that is too long for a notice's payload).
CREATE OR REPLACE FUNCTION locks_notice_key(p_stored text, p_full text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_full IS NULL OR octet_length(p_full) > 7900 THEN p_stored ELSE p_full END
$$;

-- The next fencing token: the sequence's next value, but at least the database's clock in microseconds since
-- the epoch (the scale of the Redis backend's tokens), and the sequence is moved up to it. A sequence that lost
-- its last values (a streaming replica promoted before it received them, a restore) would issue tokens again
-- that the old server had already handed out: the clock, which went on meanwhile, keeps the tokens above them.
-- The sequence, kept ahead of the clock's tokens, keeps them going up should the clock step back. Two calls
-- drawing in the same microsecond may get the same token: they hold different keys (a token is drawn only
-- once every row of its lease is locked, and the next holder of a key draws after this one's commit, by a
-- later clock).
CREATE OR REPLACE FUNCTION locks_next_token() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_next  bigint := nextval('locks_fencing');
    v_token bigint := greatest(v_next, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint);
BEGIN
    IF v_token > v_next THEN
        PERFORM setval('locks_fencing', v_token);
    END IF;
    RETURN v_token;
END $$;

-- The wait queues of the keys (SPEC 3, no starvation across nodes): a ticket per waiting acquire and key, oldest
-- (lowest ticket_order) first. A ticket counts while expires_at lies ahead (its waiter refreshes it; one whose
-- node died expires); expired ones are ignored, and deleted by locks_purge.
CREATE TABLE IF NOT EXISTS locks_waiter (
    lock_key     text COLLATE "C" NOT NULL, -- as stored in locks_lock (locks_key)
    ticket_id    text        NOT NULL,
    ticket_order bigint      NOT NULL,
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (lock_key, ticket_id)
);

CREATE INDEX IF NOT EXISTS locks_waiter_expires_at ON locks_waiter (expires_at);

-- The order of new tickets.
CREATE SEQUENCE IF NOT EXISTS locks_ticket AS bigint;

-- The 1-based position of the first of p_keys (stored) for which a live ticket other than p_ticket, older than
-- p_order (any, when p_order is 0), waits; null when none. Every node's tickets count, the caller's node's own too
-- (as on Redis): a node's threads contend for a key in its memory without an order of their own, so a queue that
-- left them out let a node's one-key callers starve its three-key waiter (issue 24). This replaces locks_queued,
-- which left out the caller's node's tickets.
CREATE OR REPLACE FUNCTION locks_queued_ahead(p_keys text[], p_ticket text, p_order bigint, p_now timestamptz)
        RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
    -- PL/pgSQL for its cached plan (see locks_keys): every acquire calls this
    RETURN (SELECT u.i FROM unnest(p_keys) WITH ORDINALITY AS u(k, i)
        WHERE EXISTS (SELECT 1 FROM locks_waiter w WHERE w.lock_key = u.k AND w.expires_at > p_now
            AND w.ticket_id <> p_ticket AND (p_order = 0 OR w.ticket_order < p_order))
        ORDER BY u.i LIMIT 1);
END $$;

-- Takes p_ticket out of the queues of the keys p_keys (stored; p_full as given), and tells the next waiters of
-- each free key whose queue still holds a live ticket: the key may now be theirs. Returns how many were told.
CREATE OR REPLACE FUNCTION locks_leave(p_keys text[], p_full text[], p_ticket text, p_now timestamptz)
        RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    v_told int := 0;
    r      record;
BEGIN
    FOR r IN DELETE FROM locks_waiter w USING unnest(p_keys, p_full) AS u(k, f)
        WHERE w.lock_key = u.k AND w.ticket_id = p_ticket RETURNING u.k, u.f
    LOOP
        IF EXISTS (SELECT 1 FROM locks_waiter w WHERE w.lock_key = r.k AND w.expires_at > p_now)
                AND NOT EXISTS (SELECT 1 FROM locks_lock l WHERE l.lock_key = r.k AND l.expires_at > p_now) THEN
            PERFORM pg_notify('locks_released', locks_notice_key(r.k, r.f));
            v_told := v_told + 1;
        END IF;
    END LOOP;
    RETURN v_told;
END $$;

-- The answer of an acquire blocked at the p_blocked-th of p_keys (stored; p_full as given): {-p_blocked, order},
-- order 0 for a caller without a ticket (p_ticket ''). A ticket is placed (p_order kept once it has one, else a
-- new order) in the queues of keys 1..p_blocked, refreshed for p_ticket_ms, and taken out of the later ones, whose
-- next waiters are told.
CREATE OR REPLACE FUNCTION locks_wait(p_keys text[], p_full text[], p_blocked bigint, p_ticket text, p_order bigint,
        p_ticket_ms bigint, p_now timestamptz) RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
    v_order bigint;
BEGIN
    IF p_ticket = '' THEN
        RETURN ARRAY[-p_blocked, 0];
    END IF;
    v_order := CASE WHEN p_order > 0 THEN p_order ELSE nextval('locks_ticket') END;
    INSERT INTO locks_waiter AS w (lock_key, ticket_id, ticket_order, expires_at)
    SELECT u.k, p_ticket, v_order, p_now + p_ticket_ms * interval '1 millisecond'
    FROM unnest(p_keys) WITH ORDINALITY AS u(k, i) WHERE u.i <= p_blocked
    ON CONFLICT (lock_key, ticket_id) DO UPDATE SET expires_at = excluded.expires_at;
    IF p_blocked < cardinality(p_keys) THEN
        PERFORM locks_leave(p_keys[p_blocked + 1:], p_full[p_blocked + 1:], p_ticket, p_now);
    END IF;
    RETURN ARRAY[-p_blocked, v_order];
END $$;

-- The hot functions (this one, locks_release) run with generic plans: PL/pgSQL otherwise plans their array-bound
-- statements again at every call (custom plans), and a 1-key acquire and release spent 206 and 82 us in them against
-- 120 and 66 with generic ones (pgbench, PostgreSQL 15, track_functions; issue 24's 1-key rows).
-- Takes every key for p_owner, all or none, unless one is held or a live ticket older than p_ticket's (any live
-- ticket, for a caller without one: p_ticket '') waits for one. Returns {token} (> 0), or {-i, order} when the
-- i-th key (1-based) is in the way; a held key is then marked as waited for. Taken: p_ticket leaves the keys'
-- queues (and a key whose queue still holds others is marked as waited for, so that its release tells them).
-- Not taken, with a ticket: it is placed (p_order kept once it has one, else a new order) in the queues of keys
-- 1..i, refreshed for p_ticket_ms, and taken out of the later ones, whose next waiters are told.
-- The token is drawn only once every row is taken (the INSERT may wait for another transaction's row): a token
-- drawn before that wait could be older than the token of a lease that took and released one of the keys
-- meanwhile.
CREATE OR REPLACE FUNCTION locks_acquire(p_keys text[], p_owner text, p_desc text, p_lease_ms bigint,
        p_infinite boolean, p_ticket text, p_order bigint, p_ticket_ms bigint) RETURNS bigint[]
        LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_now     timestamptz := clock_timestamp();
    v_full    text[] := p_keys;
    v_token   bigint;
    v_taken   int;
    v_blocked bigint;
BEGIN
    p_keys := locks_keys(p_keys);
    INSERT INTO locks_lock AS l (lock_key, full_key, owner_id, owner_desc, token, acquired_at, expires_at,
            infinite)
    SELECT u.k, CASE WHEN u.k <> u.f THEN u.f END, p_owner, p_desc, 0, v_now,
        v_now + p_lease_ms * interval '1 millisecond', p_infinite
    FROM unnest(p_keys, v_full) AS u(k, f)
    ORDER BY u.k COLLATE "C"
    ON CONFLICT (lock_key) DO UPDATE
        SET owner_id = excluded.owner_id, owner_desc = excluded.owner_desc, token = excluded.token,
            acquired_at = excluded.acquired_at, expires_at = excluded.expires_at, infinite = excluded.infinite,
            full_key = excluded.full_key
        WHERE l.expires_at <= v_now OR l.owner_id = p_owner; -- the same owner again: a retried call
    GET DIAGNOSTICS v_taken = ROW_COUNT;
    v_blocked := locks_queued_ahead(p_keys, p_ticket, p_order, v_now);
    IF v_taken = cardinality(p_keys) AND v_blocked IS NULL THEN
        v_token := locks_next_token();
        UPDATE locks_lock l SET token = v_token, waited = l.waited OR EXISTS (SELECT 1 FROM locks_waiter w
            WHERE w.lock_key = l.lock_key AND w.ticket_id <> p_ticket AND w.expires_at > v_now)
        WHERE l.lock_key = ANY (p_keys);
        IF p_ticket <> '' THEN
            DELETE FROM locks_waiter WHERE lock_key = ANY (p_keys) AND ticket_id = p_ticket;
        END IF;
        RETURN ARRAY[v_token];
    END IF;
    -- not all: take nothing (the rows stay locked by this transaction until it ends, a moment from now)
    DELETE FROM locks_lock WHERE lock_key = ANY (p_keys) AND owner_id = p_owner;
    SELECT u.i INTO v_taken
    FROM unnest(p_keys) WITH ORDINALITY AS u(k, i) JOIN locks_lock l ON l.lock_key = u.k
    ORDER BY u.i LIMIT 1;
    IF v_taken IS NOT NULL AND (v_blocked IS NULL OR v_taken <= v_blocked) THEN
        v_blocked := v_taken;
        UPDATE locks_lock SET waited = true WHERE lock_key = p_keys[v_blocked] AND NOT waited;
    END IF;
    IF v_blocked IS NULL THEN
        RETURN ARRAY[-1, 0]; -- freed meanwhile: the caller tries again
    END IF;
    RETURN locks_wait(p_keys, v_full, v_blocked, p_ticket, p_order, p_ticket_ms, v_now);
END $$;

-- Places p_ticket in the queues of p_keys, or refreshes it there for p_ticket_ms (p_order kept once it has one,
-- 0 for a new one), without trying to take them. Returns the ticket's order.
CREATE OR REPLACE FUNCTION locks_enqueue(p_keys text[], p_ticket text, p_order bigint, p_ticket_ms bigint)
        RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_order bigint := CASE WHEN p_order > 0 THEN p_order ELSE nextval('locks_ticket') END;
BEGIN
    INSERT INTO locks_waiter AS w (lock_key, ticket_id, ticket_order, expires_at)
    SELECT k, p_ticket, v_order, clock_timestamp() + p_ticket_ms * interval '1 millisecond'
    FROM unnest(locks_keys(p_keys)) AS k ORDER BY k COLLATE "C"
    ON CONFLICT (lock_key, ticket_id) DO UPDATE SET expires_at = excluded.expires_at;
    RETURN v_order;
END $$;

-- Takes p_ticket out of the queues of p_keys: its waiter gave up. Returns how many next waiters were told.
CREATE OR REPLACE FUNCTION locks_dequeue(p_keys text[], p_ticket text) RETURNS int LANGUAGE sql AS $$
    SELECT locks_leave(locks_keys(p_keys), p_keys, p_ticket, clock_timestamp())
$$;

-- Releases each key that its owner still holds and notifies those someone waits for. Returns the 1-based
-- positions of the keys their owner no longer held (expired or taken).
-- One DELETE by primary key per key, in key order (COLLATE "C", as every function locks rows): a single DELETE
-- of all of them through a join with the arrays and a FOR UPDATE subquery ran 2.5 times slower for one key (pgbench
-- on PostgreSQL 15, acquire + release: 1,840 against 4,660 cycles/s), and slower for five.
CREATE OR REPLACE FUNCTION locks_release(p_keys text[], p_owners text[]) RETURNS int[] LANGUAGE plpgsql
        SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_now    timestamptz := clock_timestamp();
    v_live   text[] := '{}';
    v_waited boolean;
    v_alive  boolean;
    v_full   text;
    r        record;
BEGIN
    p_keys := locks_keys(p_keys);
    FOR r IN SELECT t.k, t.o FROM unnest(p_keys, p_owners) AS t(k, o) ORDER BY t.k COLLATE "C"
    LOOP
        DELETE FROM locks_lock WHERE lock_key = r.k AND owner_id = r.o
        RETURNING waited, expires_at > v_now, full_key INTO v_waited, v_alive, v_full;
        IF FOUND THEN
            IF v_waited THEN
                PERFORM pg_notify('locks_released', locks_notice_key(r.k, v_full));
            END IF;
            IF v_alive THEN
                v_live := v_live || r.k;
            END IF;
        END IF;
    END LOOP;
    RETURN ARRAY(SELECT u.i::int FROM unnest(p_keys) WITH ORDINALITY AS u(k, i) WHERE NOT (u.k = ANY (v_live)));
END $$;

-- A release of keys of which some were closed before their hold-at-least time: p_hold_ms[i] is how long after its
-- acquired_at (the database's time) the key p_keys[i] stays locked, 0 for none. A key its owner still holds (or
-- holds over: owner id with the suffix '~held', from an earlier call) is released as by locks_release once that
-- time has passed; before it, it is held over: its owner id gets the suffix (so that its owner's renewals find it
-- lost, while a later call still reaches it), its expires_at becomes that time (an expired row is free for any
-- acquirer, and purged), and the key stays locked for everyone until then. Returns pairs {i, ms}: ms > 0 for
-- a key held over that many more milliseconds, 0 for a key its owner no longer held.
CREATE OR REPLACE FUNCTION locks_release_held(p_keys text[], p_owners text[], p_hold_ms bigint[]) RETURNS bigint[]
        LANGUAGE plpgsql AS $$
DECLARE
    v_now    timestamptz := clock_timestamp();
    v_result bigint[] := '{}';
    v_until  timestamptz;
    v_lock   record;
    r        record;
BEGIN
    p_keys := locks_keys(p_keys);
    FOR r IN SELECT t.k, t.o, t.h, t.i FROM unnest(p_keys, p_owners, p_hold_ms) WITH ORDINALITY AS t(k, o, h, i)
        ORDER BY t.k COLLATE "C"
    LOOP
        SELECT l.owner_id, l.acquired_at, l.expires_at, l.waited, l.full_key INTO v_lock FROM locks_lock l
        WHERE l.lock_key = r.k AND l.owner_id IN (r.o, r.o || '~held') FOR UPDATE;
        IF NOT FOUND THEN
            v_result := v_result || ARRAY[r.i, 0];
            CONTINUE;
        END IF;
        v_until := v_lock.acquired_at + r.h * interval '1 millisecond';
        IF v_lock.expires_at > v_now AND v_until > v_now THEN
            UPDATE locks_lock SET owner_id = r.o || '~held', expires_at = v_until, infinite = false
            WHERE lock_key = r.k;
            v_result := v_result || ARRAY[r.i, ceil(extract(epoch FROM v_until - v_now) * 1000)::bigint];
            CONTINUE;
        END IF;
        DELETE FROM locks_lock WHERE lock_key = r.k;
        IF v_lock.waited THEN
            PERFORM pg_notify('locks_released', locks_notice_key(r.k, v_lock.full_key));
        END IF;
        IF v_lock.expires_at <= v_now AND v_lock.owner_id = r.o THEN
            v_result := v_result || ARRAY[r.i, 0]; -- its lease had run out before the release
        END IF;
    END LOOP;
    RETURN v_result;
END $$;

-- Extends the lease of each key its owner still holds and that has not run out (an expired lock is never
-- revived). Returns the 1-based positions of the keys their owner no longer held.
CREATE OR REPLACE FUNCTION locks_renew(p_keys text[], p_owners text[], p_lease_ms bigint[]) RETURNS int[]
        LANGUAGE plpgsql AS $$
DECLARE
    v_now     timestamptz := clock_timestamp();
    v_renewed text[];
BEGIN
    p_keys := locks_keys(p_keys);
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
    DELETE FROM locks_lock WHERE lock_key = locks_key(p_key) RETURNING true INTO v_found;
    DELETE FROM locks_holder WHERE lock_key = locks_key(p_key); -- shared or counted holders, if any
    PERFORM pg_notify('locks_released', locks_notice_key(locks_key(p_key), p_key));
    RETURN coalesce(v_found, false);
END $$;

-- Deletes up to p_limit expired locks (a crashed node's, say; they no longer block anyone) and notifies
-- those someone waits for, and up to p_limit expired tickets. Returns how many locks.
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
        RETURNING d.lock_key, d.waited, d.full_key
    LOOP
        v_count := v_count + 1;
        IF r.waited THEN
            PERFORM pg_notify('locks_released', locks_notice_key(r.lock_key, r.full_key));
        END IF;
    END LOOP;
    DELETE FROM locks_waiter w USING (
        SELECT e.lock_key, e.ticket_id FROM locks_waiter e WHERE e.expires_at <= clock_timestamp()
        LIMIT p_limit FOR UPDATE SKIP LOCKED) old
    WHERE w.lock_key = old.lock_key AND w.ticket_id = old.ticket_id AND w.expires_at <= clock_timestamp();
    RETURN v_count;
END $$;

-- ---- Shared and counted locks (SPEC 13)
--
-- A key held shared (a read lock) or by permits (a counted lock) has one row in locks_lock all the same, the
-- group row: owner_id '~shared' or '~permits:<n>' (never an owner's id, which starts with its node's id), token
-- 0, expires_at the latest of its holders'. So an exclusive acquire (locks_acquire) meets it as a held key, waits
-- its turn and marks it waited for, with no change of its own. Each holder is a row of locks_holder, with its
-- own owner, token and expiry: a crashed holder's place frees itself when its lease runs out. Added to the schema
-- of an earlier version as it stands (the script runs again in place: nothing of its tables changes).
CREATE TABLE IF NOT EXISTS locks_holder (
    lock_key    text COLLATE "C" NOT NULL, -- as stored in locks_lock (locks_key)
    owner_id    text        NOT NULL,
    owner_desc  text        NOT NULL,
    token       bigint      NOT NULL, -- 0 until the acquire that writes it ends
    acquired_at timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    infinite    boolean     NOT NULL DEFAULT false,
    PRIMARY KEY (lock_key, owner_id)
);

-- Takes every key for p_owner as one of its shared holders (p_permits -1) or one of its p_permits permits, all
-- or none, as locks_acquire takes keys exclusive: in key order, behind older tickets, with the same
-- queues and tokens. Returns {token} (> 0); {-i, order} when the i-th key is in the way (held exclusive, every
-- permit taken, or an older ticket), a held key then marked as waited for; or {-i, 0, held} when the i-th key is
-- held with another number of permits held (-1 shared, 1 exclusive): nothing taken, no ticket placed.
-- A blocked call undoes what it wrote (the block's subtransaction), then places its ticket as locks_acquire does.
CREATE OR REPLACE FUNCTION locks_acquire_shared(p_keys text[], p_owner text, p_desc text, p_lease_ms bigint,
        p_infinite boolean, p_ticket text, p_order bigint, p_ticket_ms bigint, p_permits int) RETURNS bigint[]
        LANGUAGE plpgsql AS $$
DECLARE
    v_now     timestamptz := clock_timestamp();
    v_until   timestamptz := clock_timestamp() + p_lease_ms * interval '1 millisecond';
    v_full    text[] := p_keys;
    v_group   text := CASE WHEN p_permits < 0 THEN '~shared' ELSE '~permits:' || p_permits END;
    v_owner   text;
    v_blocked bigint;
    v_held    int := 0;
    v_new     int;
    v_token   bigint;
    r         record;
BEGIN
    p_keys := locks_keys(p_keys);
    BEGIN
        FOR r IN SELECT u.k, u.f, u.i FROM unnest(p_keys, v_full) WITH ORDINALITY AS u(k, f, i)
            ORDER BY u.k COLLATE "C"
        LOOP
            INSERT INTO locks_lock AS l (lock_key, full_key, owner_id, owner_desc, token, acquired_at, expires_at,
                    infinite)
            VALUES (r.k, CASE WHEN r.k <> r.f THEN r.f END, v_group, v_group, 0, v_now, v_until, false)
            ON CONFLICT (lock_key) DO UPDATE
                SET owner_id = excluded.owner_id, owner_desc = excluded.owner_desc, token = 0,
                    acquired_at = excluded.acquired_at, expires_at = excluded.expires_at, infinite = false,
                    full_key = excluded.full_key
                WHERE l.expires_at <= v_now;
            GET DIAGNOSTICS v_new = ROW_COUNT;
            IF v_new = 1 THEN -- a new group: the holders of an earlier one (expired, forced out) are gone
                DELETE FROM locks_holder WHERE lock_key = r.k;
            END IF;
            SELECT l.owner_id INTO v_owner FROM locks_lock l WHERE l.lock_key = r.k FOR UPDATE;
            IF left(v_owner, 1) <> '~' THEN -- held exclusive
                v_blocked := r.i;
                v_held := CASE WHEN p_permits > 0 THEN 1 ELSE 0 END;
                RAISE EXCEPTION USING ERRCODE = 'LKS01';
            END IF;
            IF v_owner <> v_group THEN
                v_blocked := r.i;
                v_held := CASE WHEN v_owner = '~shared' THEN -1 ELSE substr(v_owner, 10)::int END;
                RAISE EXCEPTION USING ERRCODE = 'LKS01';
            END IF;
            DELETE FROM locks_holder WHERE lock_key = r.k AND expires_at <= v_now;
            IF p_permits > 0 AND (SELECT count(*) FROM locks_holder h WHERE h.lock_key = r.k
                    AND h.owner_id <> p_owner) >= p_permits THEN
                v_blocked := r.i;
                RAISE EXCEPTION USING ERRCODE = 'LKS01';
            END IF;
            INSERT INTO locks_holder AS h (lock_key, owner_id, owner_desc, token, acquired_at, expires_at, infinite)
            VALUES (r.k, p_owner, p_desc, 0, v_now, v_until, p_infinite)
            ON CONFLICT (lock_key, owner_id) DO UPDATE SET expires_at = excluded.expires_at; -- a retried call
            UPDATE locks_lock SET expires_at = greatest(expires_at, v_until) WHERE lock_key = r.k;
        END LOOP;
        v_blocked := locks_queued_ahead(p_keys, p_ticket, p_order, v_now);
        IF v_blocked IS NOT NULL THEN
            RAISE EXCEPTION USING ERRCODE = 'LKS01';
        END IF;
        v_token := locks_next_token();
        UPDATE locks_holder SET token = v_token WHERE lock_key = ANY (p_keys) AND owner_id = p_owner;
        UPDATE locks_lock l SET waited = l.waited OR EXISTS (SELECT 1 FROM locks_waiter w
            WHERE w.lock_key = l.lock_key AND w.ticket_id <> p_ticket AND w.expires_at > v_now)
        WHERE l.lock_key = ANY (p_keys);
        IF p_ticket <> '' THEN
            DELETE FROM locks_waiter WHERE lock_key = ANY (p_keys) AND ticket_id = p_ticket;
        END IF;
        RETURN ARRAY[v_token];
    EXCEPTION WHEN SQLSTATE 'LKS01' THEN
        NULL; -- blocked: everything the block wrote is undone
    END;
    IF v_held <> 0 THEN
        RETURN ARRAY[-v_blocked, 0, v_held];
    END IF;
    UPDATE locks_lock SET waited = true WHERE lock_key = p_keys[v_blocked] AND NOT waited;
    RETURN locks_wait(p_keys, v_full, v_blocked, p_ticket, p_order, p_ticket_ms, v_now);
END $$;

-- Takes each owner's place out of its key (the other holders keep theirs): the group row then expires with its
-- latest live holder, or goes with the last one; a key marked waited for is notified (a freed permit may be a
-- waiter's). Returns the 1-based positions of the keys on which their owner no longer held a live place.
CREATE OR REPLACE FUNCTION locks_release_shared(p_keys text[], p_owners text[]) RETURNS int[]
        LANGUAGE plpgsql AS $$
DECLARE
    v_now    timestamptz := clock_timestamp();
    v_lost   int[] := '{}';
    v_alive  boolean;
    v_latest timestamptz;
    v_waited boolean;
    v_full   text;
    r        record;
BEGIN
    p_keys := locks_keys(p_keys);
    FOR r IN SELECT t.k, t.o, t.i FROM unnest(p_keys, p_owners) WITH ORDINALITY AS t(k, o, i)
        ORDER BY t.k COLLATE "C"
    LOOP
        SELECT l.waited, l.full_key INTO v_waited, v_full FROM locks_lock l
        WHERE l.lock_key = r.k AND left(l.owner_id, 1) = '~' FOR UPDATE;
        IF NOT FOUND THEN
            v_lost := v_lost || r.i::int;
            CONTINUE;
        END IF;
        DELETE FROM locks_holder WHERE lock_key = r.k AND owner_id = r.o RETURNING expires_at > v_now INTO v_alive;
        IF NOT coalesce(v_alive, false) THEN
            v_lost := v_lost || r.i::int;
        END IF;
        SELECT max(h.expires_at) INTO v_latest FROM locks_holder h WHERE h.lock_key = r.k AND h.expires_at > v_now;
        IF v_latest IS NULL THEN
            DELETE FROM locks_lock WHERE lock_key = r.k;
            DELETE FROM locks_holder WHERE lock_key = r.k;
        ELSE
            UPDATE locks_lock SET expires_at = v_latest WHERE lock_key = r.k;
        END IF;
        IF v_waited AND v_alive THEN
            PERFORM pg_notify('locks_released', locks_notice_key(r.k, v_full));
        END IF;
    END LOOP;
    RETURN v_lost;
END $$;

-- Extends the lease of each owner's live place in its key, and the group row's with it (an expired place is
-- never revived). Returns the 1-based positions of the keys on which their owner no longer held a live place.
CREATE OR REPLACE FUNCTION locks_renew_shared(p_keys text[], p_owners text[], p_lease_ms bigint[]) RETURNS int[]
        LANGUAGE plpgsql AS $$
DECLARE
    v_now  timestamptz := clock_timestamp();
    v_lost int[] := '{}';
    r      record;
BEGIN
    p_keys := locks_keys(p_keys);
    FOR r IN SELECT t.k, t.o, t.ms, t.i FROM unnest(p_keys, p_owners, p_lease_ms) WITH ORDINALITY AS t(k, o, ms, i)
        ORDER BY t.k COLLATE "C"
    LOOP
        PERFORM 1 FROM locks_lock l WHERE l.lock_key = r.k AND left(l.owner_id, 1) = '~' AND l.expires_at > v_now
        FOR UPDATE;
        IF FOUND THEN
            UPDATE locks_holder SET expires_at = v_now + r.ms * interval '1 millisecond'
            WHERE lock_key = r.k AND owner_id = r.o AND expires_at > v_now;
        END IF;
        IF FOUND THEN
            UPDATE locks_lock SET expires_at = greatest(expires_at, v_now + r.ms * interval '1 millisecond')
            WHERE lock_key = r.k;
        ELSE
            v_lost := v_lost || r.i::int;
        END IF;
    END LOOP;
    RETURN v_lost;
END $$;

-- ---- The compute cache (JdbcComputeCache)
--
-- locks_value holds the computed values; locks_compute the record of each key's miss, which is also its
-- compute lock: at most one row per key with invalidated = false (the current miss) and one with
-- invalidated = true (a miss that was in flight when the key was invalidated: it goes on for its computers and
-- waiters, but its result is not stored). A row whose expires_at has passed counts as absent everywhere: a
-- miss being computed expires with its computer's compute timeout (a waiter then takes over), a miss that is
-- done a few seconds later (so that a waiter whose notice was lost still learns a null result or a failure).
-- Every function takes the key's transaction-scoped advisory lock first, so that the calls of one key run one
-- after the other (as a script does on Redis); expired rows of other keys are removed a couple at a time by
-- the calls that add rows, as their last step (SKIP LOCKED: they never wait for them). The end of a miss and
-- an invalidation are told to every node on the channel locks_computed.

CREATE TABLE IF NOT EXISTS locks_value (
    value_key  text COLLATE "C" PRIMARY KEY,
    value      bytea       NOT NULL,
    stored_at  timestamptz NOT NULL,
    expires_at timestamptz -- null: no expiry (a TTL of zero)
);

CREATE INDEX IF NOT EXISTS locks_value_expires_at ON locks_value (expires_at);

-- Refresh-ahead and stale-if-error (added to the table of an earlier version as it stands): a value past
-- expires_at stays readable as stale until stale_until (null: not at all), and is removed after; a key whose
-- computation failed while a stale or old value was served backs off until backoff_until. A value's age is the
-- time since stored_at.
ALTER TABLE locks_value ADD COLUMN IF NOT EXISTS stale_until timestamptz;
ALTER TABLE locks_value ADD COLUMN IF NOT EXISTS backoff_until timestamptz;

CREATE TABLE IF NOT EXISTS locks_compute (
    compute_key   text COLLATE "C" NOT NULL,
    invalidated   boolean     NOT NULL,
    miss_id       text        NOT NULL,
    turn          int         NOT NULL, -- 0 for the first computer, then one more for each that took over
    computer_id   text        NOT NULL,
    computer_desc text        NOT NULL,
    started_at    timestamptz NOT NULL, -- when the current computer took its turn
    hint          text        NOT NULL, -- the first computer's
    ttl_ms        bigint      NOT NULL, -- the TTL the miss began with (0: none)
    state         text        NOT NULL CHECK (state IN ('computing', 'done')),
    outcome       text        CHECK (outcome IN ('value', 'null', 'failed')),
    class_name    text,
    message       text,
    value         bytea,                -- the value an invalidated or short-lived miss ended with, for waiters on other nodes
    expires_at    timestamptz NOT NULL,
    PRIMARY KEY (compute_key, invalidated)
);

CREATE INDEX IF NOT EXISTS locks_compute_expires_at ON locks_compute (expires_at);

-- A caller of a missing key looks it up once more and, if it is still missing, becomes the computer of its
-- miss (a new one, or the awaited one p_awaited, whose computer's turn p_turn ran out: the next turn, with
-- that miss's hint and TTL) or learns whom to wait for. o_kind is
--   'hit' (o_value), 'compute' (o_miss, o_turn, o_hint, o_ttl_ms),
--   'wait' (o_miss, o_turn, o_hint, o_ttl_ms; o_left_ms until that computer's turn runs out, o_computer its
--          description, o_started_at when it took its turn),
--   'done': the awaited miss ended with o_outcome 'null' or 'failed' (o_class, o_message), or with 'value'
--          (o_value): invalidated meanwhile (not stored), or short-lived and expired before the caller read it.
-- p_refresh_ms > 0 for a background refresh: a value stored at least that long ago counts as missing.
CREATE OR REPLACE FUNCTION locks_compute_claim(p_key text, p_computer text, p_desc text, p_timeout_ms bigint,
        p_new_miss text, p_hint text, p_ttl_ms bigint, p_awaited text, p_turn int, p_awaited_hint text,
        p_awaited_ttl_ms bigint, p_refresh_ms bigint,
        OUT o_kind text, OUT o_value bytea, OUT o_miss text, OUT o_turn int, OUT o_hint text, OUT o_ttl_ms bigint,
        OUT o_left_ms bigint, OUT o_computer text, OUT o_started_at timestamptz, OUT o_outcome text,
        OUT o_class text, OUT o_message text) LANGUAGE plpgsql AS $$
DECLARE
    v_now     timestamptz;
    v_waiting boolean := false;
    r         locks_compute;
BEGIN
    p_key := locks_key(p_key);
    PERFORM pg_advisory_xact_lock(hashtext('locks_compute'), hashtext(p_key));
    v_now := clock_timestamp();
    SELECT v.value INTO o_value FROM locks_value v
    WHERE v.value_key = p_key AND (v.expires_at IS NULL OR v.expires_at > v_now)
      AND (p_refresh_ms <= 0 OR v.stored_at > v_now - p_refresh_ms * interval '1 millisecond');
    IF FOUND THEN
        o_kind := 'hit';
        RETURN;
    END IF;
    IF p_awaited <> '' THEN
        SELECT * INTO r FROM locks_compute c
        WHERE c.compute_key = p_key AND c.invalidated AND c.expires_at > v_now AND c.miss_id = p_awaited;
        IF FOUND THEN
            IF r.state <> 'computing' THEN
                o_kind := 'done';
                o_outcome := r.outcome;
                o_value := r.value;
                o_class := r.class_name;
                o_message := r.message;
                RETURN;
            END IF;
            v_waiting := true;
        END IF;
    END IF;
    IF NOT v_waiting THEN
        SELECT * INTO r FROM locks_compute c WHERE c.compute_key = p_key AND NOT c.invalidated AND c.expires_at > v_now;
        IF FOUND THEN
            IF r.state = 'computing' AND r.computer_id = p_computer THEN
                -- this very claim, made again after its answer was lost with its connection: it computes
                o_kind := 'compute';
                o_miss := r.miss_id;
                o_turn := r.turn;
                o_hint := r.hint;
                o_ttl_ms := r.ttl_ms;
                RETURN;
            ELSIF r.state = 'computing' THEN
                v_waiting := true;
            ELSIF r.miss_id = p_awaited AND (r.outcome <> 'value' OR r.value IS NOT NULL) THEN
                o_kind := 'done';
                o_outcome := r.outcome;
                o_value := r.value;
                o_class := r.class_name;
                o_message := r.message;
                RETURN;
            END IF;
            -- done, and its value is gone (expired, invalidated) or it is not the miss the caller waited for
        ELSIF p_awaited <> '' THEN
            -- the computer of the awaited miss timed out: the caller takes its turn, with the miss's first hint
            o_miss := p_awaited;
            o_turn := p_turn + 1;
            o_hint := p_awaited_hint;
            o_ttl_ms := p_awaited_ttl_ms;
        END IF;
    END IF;
    IF v_waiting THEN
        o_kind := 'wait';
        o_miss := r.miss_id;
        o_turn := r.turn;
        o_hint := r.hint;
        o_ttl_ms := r.ttl_ms;
        o_left_ms := ceil(extract(epoch FROM r.expires_at - v_now) * 1000)::bigint;
        o_computer := r.computer_desc;
        o_started_at := r.started_at;
        RETURN;
    END IF;
    IF o_miss IS NULL THEN
        o_miss := p_new_miss;
        o_turn := 0;
        o_hint := p_hint;
        o_ttl_ms := p_ttl_ms;
    END IF;
    INSERT INTO locks_compute AS c (compute_key, invalidated, miss_id, turn, computer_id, computer_desc, started_at,
            hint, ttl_ms, state, outcome, class_name, message, value, expires_at)
    VALUES (p_key, false, o_miss, o_turn, p_computer, p_desc, v_now, o_hint, o_ttl_ms, 'computing', NULL, NULL, NULL,
            NULL, v_now + p_timeout_ms * interval '1 millisecond')
    ON CONFLICT (compute_key, invalidated) DO UPDATE
        SET miss_id = excluded.miss_id, turn = excluded.turn, computer_id = excluded.computer_id,
            computer_desc = excluded.computer_desc, started_at = excluded.started_at, hint = excluded.hint,
            ttl_ms = excluded.ttl_ms, state = excluded.state, outcome = NULL, class_name = NULL, message = NULL,
            value = NULL, expires_at = excluded.expires_at;
    o_kind := 'compute';
    DELETE FROM locks_compute c USING (
        SELECT e.compute_key, e.invalidated FROM locks_compute e WHERE e.expires_at <= v_now
        LIMIT 2 FOR UPDATE SKIP LOCKED) old
    WHERE c.compute_key = old.compute_key AND c.invalidated = old.invalidated AND c.expires_at <= v_now;
END $$;

-- The claim of an earlier version (nodes of which may still run during a rolling deploy): never a refresh.
CREATE OR REPLACE FUNCTION locks_compute_claim(p_key text, p_computer text, p_desc text, p_timeout_ms bigint,
        p_new_miss text, p_hint text, p_ttl_ms bigint, p_awaited text, p_turn int, p_awaited_hint text,
        p_awaited_ttl_ms bigint,
        OUT o_kind text, OUT o_value bytea, OUT o_miss text, OUT o_turn int, OUT o_hint text, OUT o_ttl_ms bigint,
        OUT o_left_ms bigint, OUT o_computer text, OUT o_started_at timestamptz, OUT o_outcome text,
        OUT o_class text, OUT o_message text) LANGUAGE sql AS $$
    SELECT * FROM locks_compute_claim(p_key, p_computer, p_desc, p_timeout_ms, p_new_miss, p_hint, p_ttl_ms,
        p_awaited, p_turn, p_awaited_hint, p_awaited_ttl_ms, 0::bigint);
$$;

-- Settles the miss p_miss with its first successful completion, from any of its computers (the current one or
-- one whose turn ran out): stores the value unless p_outcome is 'null', with a TTL of p_ttl_ms (0: none; -1:
-- the TTL the miss began with), marks the miss done for p_grace_ms and notifies p_notice. A miss whose key was
-- invalidated while it ran is settled the same way but stores nothing (its value stays in its record for the
-- grace period, for the waiters on other nodes), and notifies p_unstored_notice. Returns 1 if this completion
-- settled the miss and stored its value, 2 if it settled an invalidated miss, 0 (changing nothing) if the miss
-- is over or unknown. A stored value whose TTL is shorter than the grace period stays in the miss's record too,
-- for a waiter that reads it only after it expired. A stored value keeps a stale copy for p_stale_ms after its TTL (0 or -1: none; a value
-- without TTL needs none) and ends the key's back-off.
CREATE OR REPLACE FUNCTION locks_compute_complete(p_key text, p_miss text, p_outcome text, p_value bytea,
        p_ttl_ms bigint, p_grace_ms bigint, p_notice text, p_unstored_notice text, p_stale_ms bigint)
        RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    v_now timestamptz;
    v_ttl bigint;
BEGIN
    p_key := locks_key(p_key);
    PERFORM pg_advisory_xact_lock(hashtext('locks_compute'), hashtext(p_key));
    v_now := clock_timestamp();
    UPDATE locks_compute c SET state = 'done', outcome = p_outcome,
        value = CASE WHEN p_outcome = 'value' AND (CASE WHEN p_ttl_ms >= 0 THEN p_ttl_ms ELSE c.ttl_ms END)
            BETWEEN 1 AND p_grace_ms - 1 THEN p_value END,
        expires_at = v_now + p_grace_ms * interval '1 millisecond'
    WHERE c.compute_key = p_key AND NOT c.invalidated AND c.miss_id = p_miss AND c.state = 'computing'
      AND c.expires_at > v_now
    RETURNING c.ttl_ms INTO v_ttl;
    IF NOT FOUND THEN
        UPDATE locks_compute c SET state = 'done', outcome = p_outcome, value = p_value,
            expires_at = v_now + p_grace_ms * interval '1 millisecond'
        WHERE c.compute_key = p_key AND c.invalidated AND c.miss_id = p_miss AND c.state = 'computing'
          AND c.expires_at > v_now;
        IF NOT FOUND THEN
            RETURN 0;
        END IF;
        PERFORM pg_notify('locks_computed', p_unstored_notice);
        RETURN 2;
    END IF;
    IF p_outcome = 'value' THEN
        IF p_ttl_ms >= 0 THEN
            v_ttl := p_ttl_ms;
        END IF;
        INSERT INTO locks_value AS v (value_key, value, stored_at, expires_at, stale_until, backoff_until)
        VALUES (p_key, p_value, v_now, CASE WHEN v_ttl > 0 THEN v_now + v_ttl * interval '1 millisecond' END,
            CASE WHEN v_ttl > 0 AND p_stale_ms > 0 THEN v_now + (v_ttl + p_stale_ms) * interval '1 millisecond' END,
            NULL)
        ON CONFLICT (value_key) DO UPDATE
            SET value = excluded.value, stored_at = excluded.stored_at, expires_at = excluded.expires_at,
                stale_until = excluded.stale_until, backoff_until = NULL;
    END IF;
    PERFORM pg_notify('locks_computed', p_notice);
    DELETE FROM locks_value v USING (
        SELECT e.value_key FROM locks_value e WHERE e.expires_at <= v_now
          AND (e.stale_until IS NULL OR e.stale_until <= v_now) LIMIT 2 FOR UPDATE SKIP LOCKED) old
    WHERE v.value_key = old.value_key AND v.expires_at <= v_now AND (v.stale_until IS NULL OR v.stale_until <= v_now);
    RETURN 1;
END $$;

-- The completion of an earlier version (nodes of which may still run during a rolling deploy): no stale copy.
CREATE OR REPLACE FUNCTION locks_compute_complete(p_key text, p_miss text, p_outcome text, p_value bytea,
        p_ttl_ms bigint, p_grace_ms bigint, p_notice text, p_unstored_notice text) RETURNS int LANGUAGE sql AS $$
    SELECT locks_compute_complete(p_key, p_miss, p_outcome, p_value, p_ttl_ms, p_grace_ms, p_notice,
        p_unstored_notice, -1::bigint);
$$;

-- The value of p_key for a call with refresh-ahead or stale-if-error: the unexpired value with its age (ms since
-- it was stored), or else its stale value (o_stale), and whether the key backs off; no row when neither.
CREATE OR REPLACE FUNCTION locks_compute_read(p_key text, OUT o_value bytea, OUT o_age_ms bigint,
        OUT o_stale boolean, OUT o_backing_off boolean) RETURNS SETOF record LANGUAGE sql STABLE AS $$
    SELECT v.value, greatest(0, floor(extract(epoch FROM clock_timestamp() - v.stored_at) * 1000))::bigint,
        v.expires_at IS NOT NULL AND v.expires_at <= clock_timestamp(),
        v.backoff_until IS NOT NULL AND v.backoff_until > clock_timestamp()
    FROM locks_value v
    WHERE v.value_key = locks_key(p_key)
      AND (v.expires_at IS NULL OR v.expires_at > clock_timestamp() OR v.stale_until > clock_timestamp());
$$;

-- Starts the error back-off of p_key for p_ms, shared by every node, unless one runs; whether it started it.
-- Only a key with a value (fresh or stale) backs off: without one a failure reaches every caller anyway.
CREATE OR REPLACE FUNCTION locks_compute_back_off(p_key text, p_ms bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    UPDATE locks_value v SET backoff_until = clock_timestamp() + p_ms * interval '1 millisecond'
    WHERE v.value_key = locks_key(p_key) AND (v.backoff_until IS NULL OR v.backoff_until <= clock_timestamp());
    RETURN FOUND;
END $$;

-- Ends the miss p_miss with its current computer's failure (p_computer must hold the current turn): stores
-- nothing, marks the miss done for p_grace_ms and notifies p_notice. An invalidated miss fails the same way.
-- Whether the miss ended (false, changing nothing, for a computer whose turn ran out or a miss that is over).
CREATE OR REPLACE FUNCTION locks_compute_fail(p_key text, p_miss text, p_computer text, p_class text,
        p_message text, p_grace_ms bigint, p_notice text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_now timestamptz;
BEGIN
    p_key := locks_key(p_key);
    PERFORM pg_advisory_xact_lock(hashtext('locks_compute'), hashtext(p_key));
    v_now := clock_timestamp();
    UPDATE locks_compute c SET state = 'done', outcome = 'failed', class_name = p_class, message = p_message,
        expires_at = v_now + p_grace_ms * interval '1 millisecond'
    WHERE c.compute_key = p_key AND c.miss_id = p_miss AND c.computer_id = p_computer AND c.state = 'computing'
      AND c.expires_at > v_now;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM pg_notify('locks_computed', p_notice);
    RETURN true;
END $$;

-- Removes the value of p_key and takes its miss in flight, if any, out of the way in one step: a caller that
-- claims after this starts a new miss, while the old one goes on for its computers and waiters, and its
-- completion stores nothing. Notifies p_notice (other nodes start new misses for later callers) and returns
-- true if a miss was in flight.
CREATE OR REPLACE FUNCTION locks_compute_invalidate(p_key text, p_notice text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_now timestamptz;
BEGIN
    p_key := locks_key(p_key);
    PERFORM pg_advisory_xact_lock(hashtext('locks_compute'), hashtext(p_key));
    v_now := clock_timestamp();
    DELETE FROM locks_value WHERE value_key = p_key;
    IF NOT EXISTS (SELECT 1 FROM locks_compute c WHERE c.compute_key = p_key AND NOT c.invalidated
            AND c.state = 'computing' AND c.expires_at > v_now) THEN
        RETURN false;
    END IF;
    DELETE FROM locks_compute WHERE compute_key = p_key AND invalidated;
    UPDATE locks_compute SET invalidated = true WHERE compute_key = p_key AND NOT invalidated;
    PERFORM pg_notify('locks_computed', p_notice);
    RETURN true;
END $$;
