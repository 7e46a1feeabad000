package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** Invalid settings are an {@link IllegalArgumentException} naming the setting, before anything connects. */
class JdbcLockRegistryBuilderTest {

    /** Never reached: every build below fails first. */
    private final DataSource nowhere = new PGSimpleDataSource();

    @Test
    void aTablePrefixThatIsNoPlainLowerCaseNameShouldBeRefused() {
        for (String prefix : new String[] {"Locks_", "locks-", "1locks_", "", "a".repeat(41), "x; DROP TABLE y"}) {
            assertThatThrownBy(() -> JdbcLockRegistry.builder(nowhere).tablePrefix(prefix).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tablePrefix");
        }
        assertThatThrownBy(() -> JdbcLockRegistry.builder(nowhere).tablePrefix(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tablePrefix");
    }

    @Test
    void aLeaseOrTimeoutUnderOneMillisecondShouldBeRefused() {
        assertThatThrownBy(() -> JdbcLockRegistry.builder(nowhere).lease(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        assertThatThrownBy(() -> JdbcLockRegistry.builder(nowhere).timeout(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> JdbcLockRegistry.builder(nowhere).lease(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
    }

    @Test
    void noConnectionsShouldBeRefused() {
        assertThatThrownBy(() -> JdbcLockRegistry.builder(nowhere).connections(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connections");
    }

    @Test
    void theSharedSettingsShouldBeCheckedToo() {
        assertThatThrownBy(() -> JdbcLockRegistry.builder(nowhere).cleanupBatchSize(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cleanupBatchSize");
    }

    @Test
    void aDataSourceShouldBeRequired() {
        assertThatThrownBy(() -> JdbcLockRegistry.builder(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("dataSource");
    }
}
