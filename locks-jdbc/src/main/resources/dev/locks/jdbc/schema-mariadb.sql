
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
    stored_value  LONGBLOB    NULL, -- the value an invalidated miss ended with, for the waiters on other nodes
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
