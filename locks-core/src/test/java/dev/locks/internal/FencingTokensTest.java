package dev.locks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FencingTokensTest {

    private final FencingTokens tokens = new FencingTokens();

    @Test
    void tokenShouldExceedEveryEarlierTokenOfAnyOfItsKeys() {
        String[] many = IntStream.range(0, 500).mapToObj(i -> "key-" + i).toArray(String[]::new);
        long highest = 0;
        for (String key : many) {
            highest = Math.max(highest, tokens.issue(new String[] {key}));
            highest = Math.max(highest, tokens.issue(new String[] {key}));
        }

        long all = tokens.issue(many);

        assertThat(all).isGreaterThan(highest);
        for (String key : many) {
            assertThat(tokens.issue(new String[] {key})).isGreaterThan(all);
        }
    }
}
