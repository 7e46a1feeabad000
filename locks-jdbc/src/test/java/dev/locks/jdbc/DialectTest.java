package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locks.jdbc.test.H2Databases;
import dev.locks.jdbc.test.MariaDbServer;
import dev.locks.jdbc.test.MariaDbServerExtension;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** Which database the backend is on: detected from the connection's metadata, or named; anything else refused. */
class DialectTest {

    @RegisterExtension
    static final MariaDbServerExtension mariadb = new MariaDbServerExtension();

    @Test
    void productNamesShouldMapToTheirDialects() {
        assertThat(Dialect.of("PostgreSQL", "15.4")).isEqualTo(Dialect.POSTGRESQL);
        assertThat(Dialect.of("MariaDB", "10.11.19-MariaDB-0+deb12u1")).isEqualTo(Dialect.MARIADB);
        // MySQL Connector/J on MariaDB says MySQL, with MariaDB in the version
        assertThat(Dialect.of("MySQL", "5.5.5-10.11.19-MariaDB-0+deb12u1")).isEqualTo(Dialect.MARIADB);
        assertThat(Dialect.of("MySQL", "8.0.36")).isEqualTo(Dialect.MYSQL);
        assertThat(Dialect.of("H2", "2.4.240 (2025-09-22)")).isEqualTo(Dialect.H2);
        assertThat(Dialect.of("Microsoft SQL Server", "16.0")).isNull();
    }

    @Test
    void theDatabaseShouldBeDetectedThroughEitherDriver() throws SQLException {
        for (MariaDbServer.Driver driver : MariaDbServer.Driver.values()) {
            DataSource dataSource = mariadb.server().dataSource(driver);
            assertThat(Dialect.detect(dataSource)).as(driver.name()).isEqualTo(Dialect.MARIADB);
            try (Connection connection = dataSource.getConnection()) {
                assertThat(Dialect.of(connection.getMetaData())).isEqualTo(Dialect.MARIADB);
            }
        }
        assertThat(Dialect.detect(H2Databases.newDatabase())).isEqualTo(Dialect.H2);
    }

    @Test
    void anUnreachableDatabaseShouldBeToldByItsUrl() {
        assertThat(Dialect.detect(new DriverManagerDataSource("jdbc:mariadb://127.0.0.1:1/locks?connectTimeout=200")))
                .isEqualTo(Dialect.MARIADB);
        assertThat(Dialect.detect(new DriverManagerDataSource("jdbc:mysql://127.0.0.1:1/locks?connectTimeout=200")))
                .isEqualTo(Dialect.MYSQL);
    }

    @Test
    void anotherDatabaseShouldStopTheBuildNamingItAndTheProperty() {
        DataSource derby = new DriverManagerDataSource("jdbc:h2:mem:derby") {
            @Override
            public Connection getConnection() throws SQLException {
                Connection connection = super.getConnection();
                DatabaseMetaData metadata = connection.getMetaData();
                DatabaseMetaData renamed = (DatabaseMetaData) Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {DatabaseMetaData.class}, (proxy, method, args) -> switch (method.getName()) {
                            case "getDatabaseProductName" -> "Apache Derby";
                            case "getDatabaseProductVersion" -> "10.16.1.1";
                            default -> method.invoke(metadata, args);
                        });
                return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {Connection.class}, (proxy, method, args) ->
                                method.getName().equals("getMetaData") ? renamed : method.invoke(connection, args));
            }
        };
        assertThatThrownBy(() -> JdbcLockRegistry.builder(derby).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Apache Derby 10.16.1.1").hasMessageContaining("locks.jdbc.dialect");
        assertThatThrownBy(() -> JdbcLockRegistry.builder(H2Databases.newDatabase()).dialect("oracle").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("locks.jdbc.dialect")
                .hasMessageContaining("oracle");
    }

    @Test
    void eachDialectsSchemaShouldBeAppliedAndCheckedNamingWhatIsMissing() throws SQLException {
        for (DataSource dataSource : List.of(H2Databases.newDatabase(), mariadb.dataSource())) {
            Dialect dialect = Dialect.detect(dataSource);
            Schema schema = new Schema("check_", dialect);
            assertThat(schema.scriptPath()).isEqualTo("dev/locks/jdbc/schema-" + dialect.id() + ".sql");
            try (Connection connection = dataSource.getConnection()) {
                assertThat(schema.missing(connection)).contains("table check_lock", "table check_waiter",
                        "table check_counter", "table check_holder");
                schema.initialize(dataSource);
                schema.initialize(dataSource); // idempotent
                assertThat(schema.missing(connection)).isEmpty();
                try (Statement statement = connection.createStatement()) { // a schema of before shared locks
                    statement.execute("DROP TABLE check_holder");
                }
                assertThat(schema.missing(connection)).containsExactly("table check_holder");
            }
        }
    }
}
