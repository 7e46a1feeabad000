package dev.locks.jdbc;

import dev.locks.contract.RemoteComputeStoreContract;
import dev.locks.jdbc.test.StatementDatabase;
import dev.locks.spi.RemoteComputeStore;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * {@link RemoteComputeStoreContract} on every dialect, as {@link JdbcComputeCache} builds its store: the functions
 * and {@code NOTIFY} of PostgreSQL ({@link JdbcComputeStore}), plain statements and a polled notice table elsewhere
 * ({@link StatementComputeStore}, polling every 50 ms here). The first node initialises the schema; the others are
 * stores on a data source of their own.
 */
abstract class SqlComputeStoreContract extends RemoteComputeStoreContract {

    private boolean first = true;

    /** The database of the test class. */
    abstract StatementDatabase database();

    @Override
    protected RemoteComputeStore newStore() {
        DataSource dataSource = first ? database().dataSource() : database().otherNode();
        if (first) {
            JdbcComputeCache.builder(dataSource).initializeSchema(true).build().close();
            first = false;
        }
        Schema schema = new Schema(Schema.DEFAULT_PREFIX, Dialect.detect(dataSource));
        return schema.dialect().notifies() ? new JdbcComputeStore(dataSource, schema, "app:", 2, 5_000)
                : new StatementComputeStore(dataSource, schema, "app:", 2, 5_000, Duration.ofMillis(50));
    }
}
