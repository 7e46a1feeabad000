package dev.locks.jdbc;

/**
 * Text as PostgreSQL's {@code text} columns and notice payloads take it. They refuse U+0000, which keys (SPEC 2)
 * and exception messages may hold: it is stored as U+0001 followed by {@code '0'}, and U+0001 itself as U+0001
 * followed by {@code '1'}. The mapping is one to one (two different texts are never stored alike) and keeps
 * every other character, so stored keys stay readable; text without either character is stored as it is.
 * Concatenation is kept too ({@code encode(a + b) == encode(a) + encode(b)}), so a stored key starts with the
 * stored key prefix.
 */
final class StoredText {

    static final char ESCAPE = '\u0001';

    private StoredText() {
    }

    /** {@code text} as stored; {@code null} stays {@code null}. */
    static String encode(String text) {
        if (text == null || (text.indexOf('\u0000') < 0 && text.indexOf(ESCAPE) < 0)) {
            return text;
        }
        StringBuilder stored = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\u0000' || c == ESCAPE) {
                stored.append(ESCAPE).append(c == ESCAPE ? '1' : '0');
            } else {
                stored.append(c);
            }
        }
        return stored.toString();
    }

    /** The text that {@link #encode} stored as {@code stored}; {@code null} stays {@code null}. */
    static String decode(String stored) {
        if (stored == null || stored.indexOf(ESCAPE) < 0) {
            return stored;
        }
        StringBuilder text = new StringBuilder(stored.length());
        for (int i = 0; i < stored.length(); i++) {
            char c = stored.charAt(i);
            if (c == ESCAPE && i + 1 < stored.length()) {
                char next = stored.charAt(++i);
                text.append(next == '0' ? '\u0000' : next == '1' ? ESCAPE : next);
            } else {
                text.append(c);
            }
        }
        return text.toString();
    }
}
