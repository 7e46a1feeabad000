-- The schema of dev.locks:locks-jdbc on H2 (2.x; for development and tests): the lock registry's table, wait
-- queue and counters, plain tables as on MariaDB (schema-mariadb.sql says what each column means).
--
-- Every name starts with the table prefix, locks_ by default (locks.jdbc.table-prefix). The script is
-- idempotent: it may run at every start. Time is the database's (CURRENT_TIMESTAMP, stored in UTC).

CREATE TABLE IF NOT EXISTS locks_lock (
    lock_key    VARBINARY(1000) NOT NULL PRIMARY KEY,
    full_key    CHARACTER VARYING,
    owner_id    VARCHAR(200) NOT NULL,
    owner_desc  CHARACTER VARYING NOT NULL,
    token       BIGINT       NOT NULL,
    acquired_at TIMESTAMP(6) NOT NULL,
    expires_at  TIMESTAMP(6) NOT NULL,
    infinite    BOOLEAN      NOT NULL DEFAULT FALSE,
    released_at TIMESTAMP(6)
);

CREATE INDEX IF NOT EXISTS locks_lock_expires_at ON locks_lock (expires_at);

CREATE INDEX IF NOT EXISTS locks_lock_released_at ON locks_lock (released_at);

CREATE TABLE IF NOT EXISTS locks_waiter (
    lock_key     VARBINARY(1000) NOT NULL,
    ticket_id    VARCHAR(200) NOT NULL,
    ticket_order BIGINT       NOT NULL,
    expires_at   TIMESTAMP(6) NOT NULL,
    PRIMARY KEY (lock_key, ticket_id)
);

CREATE INDEX IF NOT EXISTS locks_waiter_expires_at ON locks_waiter (expires_at);

CREATE TABLE IF NOT EXISTS locks_counter (
    name  VARCHAR(20) NOT NULL PRIMARY KEY,
    counted BIGINT NOT NULL
);

INSERT INTO locks_counter (name, counted) SELECT v.name, v.counted FROM (VALUES ('fencing', 0), ('ticket', 0))
    AS v (name, counted) WHERE NOT EXISTS (SELECT 1 FROM locks_counter c WHERE c.name = v.name);
