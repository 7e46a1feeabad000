package dev.locks.docs.start;

import dev.locks.AcquireOptions;
import dev.locks.ComputeOptions;
import dev.locks.jdbc.JdbcComputeCache;
import dev.locks.jdbc.JdbcLockRegistry;
import dev.locks.local.LocalComputeCache;
import dev.locks.local.LocalLockRegistry;
import dev.locks.spi.JdkValueSerializer;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/** The library without Spring. */
class PlainJava {

    private final QuoteUpstream upstream;

    PlainJava(QuoteUpstream upstream) {
        this.upstream = upstream;
    }

    Quote local() {
        // tag::plain-java[]
        try (LocalLockRegistry registry = LocalLockRegistry.builder()
                .defaultOptions(AcquireOptions.defaults().withWaitTime(Duration.ofSeconds(5)))
                .cleanupInterval(Duration.ofMinutes(5))   // its own periodic sweep, on one daemon thread; ZERO for none
                .cleanupBatchSize(100)
                .watchdog(false)
                .build()) {
            String result = registry.withLocks(List.of("report:daily"), () -> buildReport());
        }

        LocalComputeCache cache = LocalComputeCache.builder()
                .defaultOptions(ComputeOptions.defaults().withComputeTimeout(Duration.ofSeconds(10)))
                .maxEntries(10_000)
                .build();
        Quote quote = cache.fetchOrCompute("quote:ACME", Duration.ofSeconds(30), () -> upstream.fetch("ACME"));
        // end::plain-java[]
        return quote;
    }

    void jdbc(DataSource dataSource, ClassLoader classLoader) {
        // tag::jdbc-builders[]
        JdbcLockRegistry registry = JdbcLockRegistry.builder(dataSource)
                .tablePrefix("locks_")            // the schema's names (default)
                .initializeSchema(true)           // run the shipped schema-postgresql.sql (idempotent); default false
                .lease(Duration.ofSeconds(30))    // the renewed lease of an infinite lock timeout (default)
                .connections(2)                   // kept for its statements, besides its one listening connection (default)
                .timeout(Duration.ofSeconds(5))   // per round trip before LockUnavailableException (default)
                .build();

        JdbcComputeCache cache = JdbcComputeCache.builder(dataSource)
                .serializer(JdkValueSerializer.withJdkTypes(classLoader, List.of("com.example.**")))  // allowed classes
                .defaultOptions(ComputeOptions.defaults().withComputeTimeout(Duration.ofSeconds(10)))
                .build();                         // same tablePrefix, keyPrefix, connections, timeout as the registry's
        // end::jdbc-builders[]
        registry.close();
    }

    private static String buildReport() {
        return "report";
    }
}
