package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.spi.RemoteComputeStore.Notice;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Notices round-trip, and stay within a store's limit whatever the key or message. */
class ComputeNoticeFramesTest {

    private static final int POSTGRES = 7_900;

    @Test
    void everyKindOfNoticeShouldRoundTrip() {
        for (Notice notice : new Notice[] {
                Notice.completed("n1", "k:1", "m.1", false),
                Notice.completed("n1", "k", "m.1", true),
                Notice.completedInvalidated("n1", "ключ\u0000", "m.2", false),
                Notice.invalidated("n2", "k"),
                Notice.failed("n3", "k", "m.3", new IllegalStateException("a: b: c")),
                Notice.failed("n3", "k", "m.3", new IllegalStateException())}) {
            assertThat(ComputeNoticeFrames.parse(ComputeNoticeFrames.frame(notice, POSTGRES))).isEqualTo(notice);
        }
    }

    @Test
    void longMessageShouldBeCutShortWithinTheLimit() {
        String message = "€".repeat(5_000); // 15,000 bytes of UTF-8
        String framed = ComputeNoticeFrames.frame(Notice.failed("n", "k", "m", new RuntimeException(message)),
                POSTGRES);

        assertThat(framed.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(POSTGRES);
        Notice parsed = ComputeNoticeFrames.parse(framed);
        assertThat(parsed.className()).isEqualTo(RuntimeException.class.getName());
        assertThat(message).startsWith(parsed.message());
        assertThat(parsed.message().length()).isGreaterThan(2_000);
        assertThat(ComputeNoticeFrames.frame(Notice.failed("n", "k", "m", new RuntimeException(message)),
                Integer.MAX_VALUE)).as("no limit: whole").contains(message);
    }

    @Test
    void keyTooLongForAnyNoticeShouldGoWithoutOneAndBeDropped() {
        String key = "k".repeat(POSTGRES);
        String framed = ComputeNoticeFrames.frame(Notice.completed("n", key, "m", false), POSTGRES);

        assertThat(framed.getBytes(StandardCharsets.UTF_8).length).isLessThan(POSTGRES);
        assertThat(ComputeNoticeFrames.parse(framed)).isNull();
    }

    @Test
    void textThatIsNotANoticeShouldBeDropped() {
        for (String text : new String[] {"", "x", "3:abc", "2:n11:k1:m5:VALUE7:extra", "2:n11:k1:m5:OTHER",
                "9:n", "-1:n1:k1:m5:VALUE", "1:n1:k1:m5:VALUE1:c1:d1:e"}) {
            assertThat(ComputeNoticeFrames.parse(text)).as(text).isNull();
        }
        assertThat(ComputeNoticeFrames.parse(null)).isNull();
    }
}
