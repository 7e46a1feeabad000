package dev.locks.jdbc;

import dev.locks.jdbc.test.H2DatabaseExtension;
import dev.locks.jdbc.test.StatementDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SqlComputeStoreContract} on H2, in memory. */
class H2ComputeStoreContractTest extends SqlComputeStoreContract {

    @RegisterExtension
    static final H2DatabaseExtension h2 = new H2DatabaseExtension();

    @Override
    StatementDatabase database() {
        return StatementDatabase.of(h2);
    }
}
