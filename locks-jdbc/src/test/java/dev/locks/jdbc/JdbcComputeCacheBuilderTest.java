package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** Invalid settings are an {@link IllegalArgumentException} naming the setting, before anything connects. */
class JdbcComputeCacheBuilderTest {

    /** Never reached: every build below fails first. */
    private final DataSource nowhere = new PGSimpleDataSource();

    @Test
    void aTablePrefixThatIsNoPlainLowerCaseNameShouldBeRefused() {
        for (String prefix : new String[] {"Locks_", "locks-", "", "x; DROP TABLE y"}) {
            assertThatThrownBy(() -> JdbcComputeCache.builder(nowhere).tablePrefix(prefix).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tablePrefix");
        }
    }

    @Test
    void aTimeoutUnderOneMillisecondOrNoConnectionsShouldBeRefused() {
        assertThatThrownBy(() -> JdbcComputeCache.builder(nowhere).timeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> JdbcComputeCache.builder(nowhere).timeout(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> JdbcComputeCache.builder(nowhere).connections(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connections");
    }

    @Test
    void missingSettingsShouldBeRefusedByName() {
        assertThatThrownBy(() -> JdbcComputeCache.builder(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dataSource");
        assertThatThrownBy(() -> JdbcComputeCache.builder(nowhere).serializer(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("serializer");
        assertThatThrownBy(() -> JdbcComputeCache.builder(nowhere).keyPrefix(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
    }
}
