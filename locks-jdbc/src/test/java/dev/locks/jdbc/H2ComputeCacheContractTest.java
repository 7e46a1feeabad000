package dev.locks.jdbc;

import dev.locks.jdbc.test.H2Extension;
import dev.locks.jdbc.test.StatementDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link StatementComputeCacheContract} on H2, in memory. */
class H2ComputeCacheContractTest extends StatementComputeCacheContract {

    @RegisterExtension
    static final H2Extension h2 = new H2Extension();

    @Override
    StatementDatabase database() {
        return h2;
    }
}
