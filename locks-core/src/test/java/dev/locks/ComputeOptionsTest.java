package dev.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Section 11's options: refreshAfter shorter than a non-zero TTL, both positive, neither set by default. */
class ComputeOptionsTest {

    @Test
    void defaultsShouldHaveNeitherRefreshAfterNorStaleIfError() {
        assertThat(ComputeOptions.defaults().refreshAfter()).isEmpty();
        assertThat(ComputeOptions.defaults().staleIfError()).isEmpty();
    }

    @Test
    void refreshAfterShorterThanTheTtlShouldBeKept() {
        ComputeOptions options = ComputeOptions.defaults().withTtl(Duration.ofMinutes(10))
                .withRefreshAfter(Duration.ofMinutes(8)).withStaleIfError(Duration.ofHours(1));

        assertThat(options.refreshAfter()).contains(Duration.ofMinutes(8));
        assertThat(options.staleIfError()).contains(Duration.ofHours(1));
        assertThat(options.ttl()).isEqualTo(Duration.ofMinutes(10));
        assertThat(options).isEqualTo(ComputeOptions.defaults().withTtl(Duration.ofMinutes(10))
                .withRefreshAfter(Duration.ofMinutes(8)).withStaleIfError(Duration.ofHours(1)));
        assertThat(options).isNotEqualTo(options.withoutRefreshAfter()).isNotEqualTo(options.withoutStaleIfError());
        assertThat(options.toString()).contains("refreshAfter=PT8M").contains("staleIfError=PT1H");
    }

    @Test
    void refreshAfterNotShorterThanTheTtlShouldBeRefusedNamingBoth() {
        ComputeOptions tenMinutes = ComputeOptions.defaults().withTtl(Duration.ofMinutes(10));

        assertThatThrownBy(() -> tenMinutes.withRefreshAfter(Duration.ofMinutes(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refreshAfter (PT10M) must be shorter than ttl (PT10M), or ttl must be 0 (no expiry)");
        ComputeOptions refreshing = tenMinutes.withRefreshAfter(Duration.ofMinutes(8));
        assertThatThrownBy(() -> refreshing.withTtl(Duration.ofMinutes(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("refreshAfter (PT8M)");
    }

    @Test
    void anyRefreshAfterShouldGoWithAValueThatNeverExpires() {
        assertThat(ComputeOptions.defaults().withTtl(Duration.ZERO).withRefreshAfter(Duration.ofDays(1)).refreshAfter())
                .contains(Duration.ofDays(1));
    }

    @Test
    void nonPositiveDurationsShouldBeRefused() {
        assertThatThrownBy(() -> ComputeOptions.defaults().withRefreshAfter(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("refreshAfter must be a duration > 0");
        assertThatThrownBy(() -> ComputeOptions.defaults().withRefreshAfter(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("refreshAfter");
        assertThatThrownBy(() -> ComputeOptions.defaults().withStaleIfError(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("staleIfError must be a duration > 0");
    }
}
