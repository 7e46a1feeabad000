package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The release message format, which release.lua writes and every node reads. */
class ReleaseMessageTest {

    @Test
    void keysShouldComeBackWholeWhateverTheyHold() {
        List<String> keys = List.of("a", "12:34", "ünï cödé", "line\nbreak", ":", "x".repeat(1_000));
        String body = String.join("", keys.stream().map(ReleaseMessage::encode).toList());

        assertThat(ReleaseMessage.decode(body.getBytes(StandardCharsets.UTF_8))).containsExactlyElementsOf(keys);
    }

    @Test
    void malformedRestShouldBeIgnored() {
        assertThat(ReleaseMessage.decode("1:a5:bc".getBytes(StandardCharsets.UTF_8))).containsExactly("a");
        assertThat(ReleaseMessage.decode("x1:a".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(ReleaseMessage.decode("99999999999:a".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(ReleaseMessage.decode(new byte[0])).isEmpty();
    }
}
