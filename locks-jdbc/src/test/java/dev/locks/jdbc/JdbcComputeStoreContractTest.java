package dev.locks.jdbc;

import dev.locks.jdbc.test.PostgresServerExtension;
import dev.locks.jdbc.test.StatementDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SqlComputeStoreContract} on PostgreSQL: its functions, and notices by {@code NOTIFY}. */
class JdbcComputeStoreContractTest extends SqlComputeStoreContract {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @Override
    StatementDatabase database() {
        return StatementDatabase.of(postgres);
    }
}
