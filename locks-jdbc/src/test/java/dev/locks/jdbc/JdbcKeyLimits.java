package dev.locks.jdbc;

import dev.locks.LockRegistry;
import dev.locks.contract.KeyLimitsContract;
import java.time.Duration;
import javax.sql.DataSource;

/** Key limits on a database: rejected in the node, before any statement could hold rows of the shared table. */
abstract class JdbcKeyLimits extends KeyLimitsContract {

    protected abstract DataSource dataSource();

    @Override
    protected LockRegistry newRegistry(int maxKeys, int maxKeyLength) {
        return builder(maxKeys, maxKeyLength).build();
    }

    @Override
    protected void build(int maxKeys, int maxKeyLength) {
        builder(maxKeys, maxKeyLength).build().close();
    }

    private JdbcLockRegistry.Builder builder(int maxKeys, int maxKeyLength) {
        return JdbcLockRegistry.builder(dataSource()).initializeSchema(true).cleanupInterval(Duration.ZERO)
                .maxKeys(maxKeys).maxKeyLength(maxKeyLength);
    }
}
