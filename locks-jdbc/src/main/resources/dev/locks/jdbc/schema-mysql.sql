-- The schema of dev.locks:locks-jdbc on MySQL (8.0 or later; tested on MariaDB through MySQL Connector/J): the lock registry's table,
-- wait queue, shared holders and counters. Plain tables only: no stored routines, so no privilege beyond CREATE (once) and
-- SELECT, INSERT, UPDATE, DELETE on these tables. schema-mariadb.sql is the same schema for MariaDB.
--
-- Every name starts with the table prefix, locks_ by default (locks.jdbc.table-prefix). Run as is for the
-- default prefix; for another one replace every "locks_" in this file by it (the builders' initializeSchema
-- does that itself). The script is idempotent: it may run at every start.
--
-- Time is the database's (UTC_TIMESTAMP(6), stored as DATETIME(6) in UTC), never a node's: a lock is live while
-- expires_at lies in the future. Keys are VARBINARY (UTF-8 bytes, compared byte by byte: no collation folds two
-- keys into one, no trailing spaces ignored); a key longer than 1,000 bytes is stored as its first 200
-- characters, U+0001, 'h' and the hex SHA-256 of the whole key, with the whole key in full_key.
--
-- A key's row stays after its release (owner_id '', released_at set), so that other nodes, which poll for
-- released_at once per locks.jdbc.poll-interval, learn of it; the sweep deletes rows free for a minute.

CREATE TABLE IF NOT EXISTS locks_lock (
    lock_key    VARBINARY(1000) NOT NULL PRIMARY KEY,
    full_key    TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    owner_id    VARCHAR(200) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    owner_desc  TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    token       BIGINT      NOT NULL,
    acquired_at DATETIME(6) NOT NULL,
    expires_at  DATETIME(6) NOT NULL,
    infinite    BOOLEAN     NOT NULL DEFAULT FALSE,
    released_at DATETIME(6) NULL,
    INDEX locks_lock_expires_at (expires_at),
    INDEX locks_lock_released_at (released_at)
) ENGINE = InnoDB;

-- The wait queues of the keys (SPEC 3, no starvation across nodes): a ticket per waiting acquire and key, oldest
-- (lowest ticket_order) first; one counts while expires_at lies ahead (its waiter refreshes it).
CREATE TABLE IF NOT EXISTS locks_waiter (
    lock_key     VARBINARY(1000) NOT NULL,
    ticket_id    VARCHAR(200) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    ticket_order BIGINT      NOT NULL,
    expires_at   DATETIME(6) NOT NULL,
    PRIMARY KEY (lock_key, ticket_id),
    INDEX locks_waiter_expires_at (expires_at)
) ENGINE = InnoDB;

-- The fencing tokens ('fencing': the last token, at least the clock in microseconds since the epoch when drawn)
-- and the order of new tickets ('ticket').
CREATE TABLE IF NOT EXISTS locks_counter (
    name  VARCHAR(20) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
    counted BIGINT NOT NULL
) ENGINE = InnoDB;

INSERT IGNORE INTO locks_counter (name, counted) VALUES ('fencing', 0), ('ticket', 0);

-- Shared and counted locks (SPEC 13), as on PostgreSQL: a key held shared (a read lock) or by permits (a counted
-- lock) has its row in locks_lock all the same, the group row: owner_id '~shared' or '~permits:<n>' (never an
-- owner's id, which starts with its node's id), token 0, expires_at the latest of its holders'; so an exclusive
-- acquire meets it as a held key. Each holder is a row here, with its own owner, token and expiry: a crashed
-- holder's place frees itself when its lease runs out, and the sweep deletes it.
CREATE TABLE IF NOT EXISTS locks_holder (
    lock_key    VARBINARY(1000) NOT NULL, -- as in locks_lock
    owner_id    VARCHAR(200) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    owner_desc  TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    token       BIGINT      NOT NULL,
    acquired_at DATETIME(6) NOT NULL,
    expires_at  DATETIME(6) NOT NULL,
    infinite    BOOLEAN     NOT NULL DEFAULT FALSE,
    PRIMARY KEY (lock_key, owner_id),
    INDEX locks_holder_expires_at (expires_at)
) ENGINE = InnoDB;

-- ---- The compute cache (JdbcComputeCache)
--
-- The tables of schema-postgresql.sql, written by plain statements (StatementComputeStore) instead of functions:
-- locks_value holds the computed values; locks_compute the record of each key's miss (invalidated = FALSE; the row
-- stays, expired, after the miss, and every step on the key locks it first) and of a miss set aside by an
-- invalidation (invalidated = TRUE). A row whose expires_at has passed counts as absent. Times are milliseconds
-- since the epoch (UTC) by the database's clock (UTC_TIMESTAMP(6)): no time zone of the session or of a node
-- enters. locks_compute_notice holds the end of each miss and each invalidation, for the other nodes, which read
-- it once per locks.jdbc.poll-interval (there are no notifications); rows older than a minute are removed.

CREATE TABLE IF NOT EXISTS locks_value (
    value_key     VARBINARY(1000) NOT NULL PRIMARY KEY,
    stored_value  LONGBLOB    NOT NULL,
    stored_at     BIGINT      NOT NULL,
    expires_at    BIGINT      NULL, -- null: no expiry (a TTL of zero)
    stale_until   BIGINT      NULL, -- past expires_at the value stays readable as stale until then (null: not)
    backoff_until BIGINT      NULL, -- the key's error back-off runs until then
    INDEX locks_value_expires_at (expires_at)
) ENGINE = InnoDB;

CREATE TABLE IF NOT EXISTS locks_compute (
    compute_key   VARBINARY(1000) NOT NULL,
    invalidated   BOOLEAN     NOT NULL,
    miss_id       VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    turn          INT         NOT NULL, -- 0 for the first computer, then one more for each that took over
    computer_id   VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    computer_desc TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    started_at    BIGINT      NOT NULL, -- when the current computer took its turn
    hint          MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, -- the first computer's
    ttl_ms        BIGINT      NOT NULL, -- the TTL the miss began with (0: none)
    state         VARCHAR(10) CHARACTER SET ascii NOT NULL, -- 'computing' or 'done'
    outcome       VARCHAR(10) CHARACTER SET ascii NULL, -- 'value', 'null' or 'failed'
    class_name    TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    message       MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    stored_value  LONGBLOB    NULL, -- the value an invalidated or short-lived miss ended with, for waiters on other nodes
    expires_at    BIGINT      NOT NULL,
    PRIMARY KEY (compute_key, invalidated),
    INDEX locks_compute_expires_at (expires_at)
) ENGINE = InnoDB;

CREATE TABLE IF NOT EXISTS locks_compute_notice (
    notice_id  BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    created_at BIGINT      NOT NULL,
    payload    MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    INDEX locks_compute_notice_created_at (created_at)
) ENGINE = InnoDB;
