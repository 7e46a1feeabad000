package dev.locks.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class StoredTextTest {

    private static final List<String> TEXTS = List.of("plain", "a\u0000b", "a\u00010b", "a\u0001\u0001", "\u0000",
            "\u0001", "\u00010", "\u00011", "a\u0001", "é\u0000\uD83D\uDE00");

    @Test
    void everyTextShouldRoundTripWithoutANul() {
        for (String text : TEXTS) {
            assertThat(StoredText.encode(text)).doesNotContain("\u0000");
            assertThat(StoredText.decode(StoredText.encode(text))).isEqualTo(text);
        }
    }

    @Test
    void differentTextsShouldNeverBeStoredAlike() {
        Set<String> stored = TEXTS.stream().map(StoredText::encode).collect(Collectors.toSet());
        assertThat(stored).hasSameSizeAs(TEXTS);
    }

    @Test
    void textWithoutNulOrEscapeShouldBeStoredAsItIsAndConcatenationKept() {
        assertThat(StoredText.encode("plain")).isSameAs("plain");
        assertThat(StoredText.encode("p\u0000" + "x\u0001")).isEqualTo(StoredText.encode("p\u0000")
                + StoredText.encode("x\u0001"));
    }
}
