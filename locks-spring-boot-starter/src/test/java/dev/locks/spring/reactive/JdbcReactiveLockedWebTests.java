package dev.locks.spring.reactive;

import dev.locks.jdbc.test.PostgresServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * {@link ReactiveLockedWebTests} on the JDBC backend, on a PostgreSQL server of this class's own through Spring Boot's {@code DataSource}
 * auto-configuration (Hikari): every acquire, lookup and release is a blocking JDBC call, which BlockHound fails
 * on an event loop. Runs in the starter's 'reactive-jdbc' execution, the one with both locks-jdbc and WebFlux on
 * the classpath. The context goes with the server, after the class.
 */
@TestPropertySource(properties = { "locks.backend=jdbc", "locks.jdbc.initialize-schema=always",
        "spring.datasource.username=postgres",
        "spring.autoconfigure.exclude=org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration,"
                + "org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration" })
@DirtiesContext
class JdbcReactiveLockedWebTests extends ReactiveLockedWebTests {

    @RegisterExtension
    static final PostgresServerExtension postgres = new PostgresServerExtension();

    @DynamicPropertySource
    static void dataSourceProperties(DynamicPropertyRegistry properties) {
        properties.add("spring.datasource.url", () -> postgres.server().jdbcUrl());
    }
}
