package dev.locks.jdbc;

import dev.locks.jdbc.test.H2Extension;
import dev.locks.jdbc.test.StatementDatabase;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link StatementFreshValuesContract} on H2, in memory. */
class H2FreshValuesContractTest extends StatementFreshValuesContract {

    @RegisterExtension
    static final H2Extension h2 = new H2Extension();

    @Override
    StatementDatabase database() {
        return h2;
    }
}
