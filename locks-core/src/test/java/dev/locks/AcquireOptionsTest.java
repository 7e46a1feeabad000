package dev.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class AcquireOptionsTest {

    @Test
    void defaultsShouldBeTheSeeds() {
        AcquireOptions defaults = AcquireOptions.defaults();
        assertThat(defaults.retries()).hasValue(3);
        assertThat(defaults.retryInterval()).hasValue(Duration.ofMillis(10));
        assertThat(defaults.lockTimeout()).hasValue(Duration.ofSeconds(30));
        assertThat(defaults.waitTime()).isEmpty();
    }

    @Test
    void fixedIntervalPausesShouldBeJitteredWithinIntervalAndTwiceIt() {
        AcquireOptions options = AcquireOptions.defaults().withRetryInterval(Duration.ofMillis(10));
        IntStream.range(0, 10_000).forEach(i -> assertThat(options.pauseAfter(i))
                .isGreaterThan(Duration.ofMillis(10)).isLessThanOrEqualTo(Duration.ofMillis(20)));
        assertThat(AcquireOptions.defaults().withRetryInterval(Duration.ZERO).pauseAfter(0)).isZero();
    }

    @Test
    void functionPausesShouldBeUsedAsIs() {
        AcquireOptions options = AcquireOptions.defaults().withRetryInterval(attempt -> Duration.ofMillis(attempt * 10L));
        assertThat(options.pauseAfter(3)).isEqualTo(Duration.ofMillis(30));
        assertThat(options.retryInterval()).isEmpty();
        assertThat(options.retryIntervalFunction()).isPresent();
    }

    @Test
    void invalidValuesShouldNameTheOption() {
        AcquireOptions options = AcquireOptions.defaults();
        assertThatThrownBy(() -> options.withRetries(-1)).hasMessageContaining("retries");
        assertThatThrownBy(() -> options.withRetryInterval(Duration.ofMillis(-1))).hasMessageContaining("retryInterval");
        assertThatThrownBy(() -> options.withLockTimeout(Duration.ZERO)).hasMessageContaining("lockTimeout");
        assertThatThrownBy(() -> options.withWaitTime(Duration.ofSeconds(-1))).hasMessageContaining("waitTime");
        assertThatThrownBy(() -> options.withRetryInterval(attempt -> Duration.ofMillis(-5)).pauseAfter(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retry interval function must return a non-negative duration");
    }

    @Test
    void infiniteSettingsShouldShowAsEmpty() {
        AcquireOptions options = AcquireOptions.defaults().withInfiniteRetries().withInfiniteLockTimeout()
                .withWaitTime(Duration.ofSeconds(5));
        assertThat(options.retries()).isEmpty();
        assertThat(options.lockTimeout()).isEmpty();
        assertThat(options.waitTime()).hasValue(Duration.ofSeconds(5));
        assertThat(options.allowsRetryAfter(1_000_000)).isTrue();
        assertThat(options.withoutWaitTime().waitTime()).isEmpty();
        assertThat(options.toString()).contains("retries=infinity", "lockTimeout=infinity", "waitTime=PT5S");
    }

    @Test
    void optionsShouldBeValues() {
        assertThat(AcquireOptions.defaults().withRetries(3)).isEqualTo(AcquireOptions.defaults())
                .hasSameHashCodeAs(AcquireOptions.defaults());
        assertThat(AcquireOptions.defaults().withRetries(4)).isNotEqualTo(AcquireOptions.defaults());
    }

    @Test
    void sharedAndPermitsShouldDefaultToOneExclusivePermit() {
        AcquireOptions defaults = AcquireOptions.defaults();
        assertThat(defaults.isShared()).isFalse();
        assertThat(defaults.permits()).isEqualTo(1);
        AcquireOptions shared = defaults.withLockTimeout(Duration.ofSeconds(5)).shared().withRetries(7);
        assertThat(shared.isShared()).isTrue();
        assertThat(shared.permits()).isEqualTo(1);
        assertThat(shared.lockTimeout()).hasValue(Duration.ofSeconds(5)); // the other options are kept
        assertThat(shared).isEqualTo(defaults.shared().withLockTimeout(Duration.ofSeconds(5)).withRetries(7))
                .isNotEqualTo(defaults.withLockTimeout(Duration.ofSeconds(5)).withRetries(7));
        assertThat(shared.toString()).contains("shared");
        AcquireOptions five = defaults.withPermits(5).withWaitTime(Duration.ofSeconds(1));
        assertThat(five.permits()).isEqualTo(5);
        assertThat(five.isShared()).isFalse();
        assertThat(five).isNotEqualTo(defaults.withPermits(4).withWaitTime(Duration.ofSeconds(1)));
        assertThat(five.hashCode()).isEqualTo(defaults.withWaitTime(Duration.ofSeconds(1)).withPermits(5).hashCode());
        assertThat(five.toString()).contains("permits=5");
    }

    @Test
    void sharedWithSeveralPermitsOrPermitsBelowOneShouldBeRefused() {
        assertThatThrownBy(() -> AcquireOptions.defaults().shared().withPermits(2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shared()")
                .hasMessageContaining("withPermits(2)");
        assertThatThrownBy(() -> AcquireOptions.defaults().withPermits(3).shared())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("withPermits(3)");
        assertThatThrownBy(() -> AcquireOptions.defaults().withPermits(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits").hasMessageContaining("0");
        assertThat(AcquireOptions.defaults().shared().withPermits(1).isShared()).isTrue();
    }
}
