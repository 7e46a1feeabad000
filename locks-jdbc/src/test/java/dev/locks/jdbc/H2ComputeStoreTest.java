package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.jdbc.test.H2DatabaseExtension;
import dev.locks.spi.RemoteComputeStore.Claim;
import dev.locks.spi.RemoteComputeStore.Claimant;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The statement compute store on H2, where the SPI asks more than the contract suites show. */
class H2ComputeStoreTest {

    @RegisterExtension
    static final H2DatabaseExtension h2 = new H2DatabaseExtension();

    /**
     * A step gives the same answer whatever the caller's interrupt status (SPI), also when it waits for the key's
     * row, which another transaction holds for a moment: H2 swallows the status in such a wait unless the store keeps
     * it aside, and the caller keeps it afterwards.
     */
    @Test
    void aClaimOfAnInterruptedThreadThatWaitsForTheKeysRowShouldComputeAndKeepTheStatus() throws Exception {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (JdbcComputeCache cache = JdbcComputeCache.builder(h2.dataSource()).initializeSchema(true).build()) {
            assertThat(cache.fetchOrCompute("k", Duration.ofMinutes(1), () -> "v")).isEqualTo("v");
            cache.invalidate("k");
            AtomicBoolean interruptedAfter = new AtomicBoolean();
            Future<Claim> claim;
            try (Connection holder = h2.dataSource().getConnection(); Statement statement = holder.createStatement()) {
                holder.setAutoCommit(false);
                statement.executeQuery("SELECT * FROM locks_compute FOR UPDATE").close();
                claim = thread.submit(() -> {
                    Thread.currentThread().interrupt();
                    try {
                        return cache.store().claim("k", new Claimant("c", "interrupted", Duration.ofSeconds(30), "m",
                                "hint", Duration.ofMinutes(1)), null);
                    } finally {
                        interruptedAfter.set(Thread.interrupted());
                    }
                });
                Thread.sleep(300);
                holder.commit();
            }
            assertThat(claim.get(10, TimeUnit.SECONDS)).isInstanceOf(Claim.Compute.class);
            assertThat(interruptedAfter).isTrue();
        } finally {
            thread.shutdownNow();
        }
    }
}
