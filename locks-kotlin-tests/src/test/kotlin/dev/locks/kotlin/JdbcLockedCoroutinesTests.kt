package dev.locks.kotlin

import dev.locks.jdbc.test.PostgresServerExtension
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/**
 * The JDBC backend, on a PostgreSQL server of this class's own, with Spring Boot's `DataSource` auto-configuration:
 * every acquire and release is a blocking JDBC call, which BlockHound fails on the callers' non-blocking threads.
 */
class JdbcLockedCoroutinesTests : LockedCoroutinesTests() {

    override fun application(): ApplicationContextRunner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration::class.java))
        .withPropertyValues("spring.datasource.url=" + postgres.server().jdbcUrl(),
            "spring.datasource.username=postgres", "locks.backend=jdbc", "locks.jdbc.initialize-schema=always")

    companion object {
        @JvmField
        @RegisterExtension
        val postgres = PostgresServerExtension()
    }
}
