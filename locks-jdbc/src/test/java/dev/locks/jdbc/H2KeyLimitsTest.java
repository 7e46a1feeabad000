package dev.locks.jdbc;

import dev.locks.LockRegistry;
import dev.locks.contract.KeyLimitsContract;
import dev.locks.jdbc.test.H2DatabaseExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Key limits on H2: rejected in the node, before any statement could lock rows of the shared table. */
class H2KeyLimitsTest extends KeyLimitsContract {

    @RegisterExtension
    static final H2DatabaseExtension db = new H2DatabaseExtension();

    @Override
    protected LockRegistry newRegistry(int maxKeys, int maxKeyLength) {
        return builder(maxKeys, maxKeyLength).build();
    }

    @Override
    protected void build(int maxKeys, int maxKeyLength) {
        builder(maxKeys, maxKeyLength).build().close();
    }

    private static JdbcLockRegistry.Builder builder(int maxKeys, int maxKeyLength) {
        return JdbcLockRegistry.builder(db.dataSource()).initializeSchema(true).cleanupInterval(Duration.ZERO)
                .maxKeys(maxKeys).maxKeyLength(maxKeyLength);
    }
}
