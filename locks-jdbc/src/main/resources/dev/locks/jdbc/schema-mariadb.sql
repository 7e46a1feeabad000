-- The schema of dev.locks:locks-jdbc on MariaDB (10.6 or later; tested on MariaDB): the lock registry's table,
-- wait queue and counters. Plain tables only: no stored routines, so no privilege beyond CREATE (once) and
-- SELECT, INSERT, UPDATE, DELETE on these tables. schema-mysql.sql is the same schema for MySQL 8.
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
