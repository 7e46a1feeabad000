package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.spi.RemoteComputeStore.Notice;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Payloads round-trip, and never reach PostgreSQL's limit, whatever the key or message. */
class ComputeNoticesTest {

    @Test
    void everyKindOfNoticeShouldRoundTrip() {
        for (Notice notice : new Notice[] {
                Notice.completed("n1", "app:k:1", "m.1", false),
                Notice.completed("n1", "app:k", "m.1", true),
                Notice.completedInvalidated("n1", "app:ключ", "m.2", false),
                Notice.invalidated("n2", "app:k"),
                Notice.failed("n3", "app:k", "m.3", new IllegalStateException("a: b: c")),
                Notice.failed("n3", "app:k", "m.3", new IllegalStateException())}) {
            assertThat(ComputeNotices.decode(ComputeNotices.encode(notice, notice.key()))).isEqualTo(notice);
        }
    }

    @Test
    void aLongMessageShouldBeCutShortWithinTheLimit() {
        String message = "€".repeat(5_000); // 15,000 bytes of UTF-8
        String payload = ComputeNotices.encode(Notice.failed("n", "k", "m", new RuntimeException(message)), "k");

        assertThat(payload.getBytes(StandardCharsets.UTF_8).length).isLessThan(ComputeNotices.MAX_BYTES);
        Notice decoded = ComputeNotices.decode(payload);
        assertThat(decoded.className()).isEqualTo(RuntimeException.class.getName());
        assertThat(message).startsWith(decoded.message());
        assertThat(decoded.message().length()).isGreaterThan(2_000);
    }

    @Test
    void aKeyTooLongForAnyNoticeShouldGoWithoutOneAndBeDropped() {
        String key = "k".repeat(ComputeNotices.MAX_BYTES);
        String payload = ComputeNotices.encode(Notice.completed("n", key, "m", false), key);

        assertThat(payload.getBytes(StandardCharsets.UTF_8).length).isLessThan(ComputeNotices.MAX_BYTES);
        assertThat(ComputeNotices.decode(payload)).isNull();
    }

    @Test
    void payloadsThatAreNotNoticesShouldBeDropped() {
        for (String payload : new String[] {"", "x", "3:abc", "1:n1:k1:m5:VALUE7:extra", "1:n1:k1:m5:OTHER",
                "9:n", "-1:n1:k1:m5:VALUE", "1:n1:k1:m5:VALUE1:c1:d1:e"}) {
            assertThat(ComputeNotices.decode(payload)).as(payload).isNull();
        }
    }
}
