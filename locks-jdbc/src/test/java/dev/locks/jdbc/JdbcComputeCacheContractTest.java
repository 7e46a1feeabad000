package dev.locks.jdbc;

import dev.locks.jdbc.test.PostgresServerExtension;
import dev.locks.jdbc.test.StatementDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SqlComputeCacheContract} on PostgreSQL: its functions, and notices by {@code NOTIFY}. */
class JdbcComputeCacheContractTest extends SqlComputeCacheContract {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    StatementDatabase database() {
        return StatementDatabase.of(postgres);
    }

    /** PostgreSQL's times are {@code timestamptz}. */
    @Override
    String[] elapsed(long millis) {
        String by = "interval '" + millis + " milliseconds'";
        return new String[] {"UPDATE locks_value SET expires_at = expires_at - " + by + " WHERE expires_at IS NOT NULL",
                "UPDATE locks_compute SET expires_at = expires_at - " + by};
    }
}
