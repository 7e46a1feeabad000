package dev.locks.spring;

import dev.locks.AcquireOptions;
import java.time.Duration;
import java.util.Locale;
import org.springframework.boot.convert.DurationStyle;

/**
 * The text forms of the acquire options, shared by the {@code locks.*} properties and the attributes of
 * {@code @Locked}: {@code retries} as {@code "0"}, {@code "5"} or {@code "infinity"}; durations in Spring
 * Boot's formats ({@code "500ms"}, {@code "PT2S"}, a plain number of milliseconds); {@code lockTimeout}
 * and {@code waitTime} also as {@code "infinity"}.
 */
public final class AcquireOptionValues {

    /** The word for "no limit". */
    public static final String INFINITY = "infinity";

    private AcquireOptionValues() {
    }

    /**
     * {@code options} with the retries that {@code value} states.
     *
     * @throws IllegalArgumentException unless {@code value} is a number >= 0 or {@code infinity}
     */
    public static AcquireOptions withRetries(AcquireOptions options, String value) {
        String text = value == null ? "" : value.trim();
        if (isInfinity(text)) {
            return options.withInfiniteRetries();
        }
        try {
            return options.withRetries(Integer.parseInt(text));
        }
        catch (NumberFormatException ex) {
            throw new IllegalArgumentException("retries must be a whole number >= 0 or 'infinity', was '" + value + "'");
        }
    }

    /**
     * {@code options} with the lock timeout that {@code value} states.
     *
     * @throws IllegalArgumentException unless {@code value} is a positive duration or {@code infinity}
     */
    public static AcquireOptions withLockTimeout(AcquireOptions options, String value) {
        String text = value == null ? "" : value.trim();
        return isInfinity(text) ? options.withInfiniteLockTimeout() : options.withLockTimeout(duration("lockTimeout", text));
    }

    /**
     * {@code options} with the wait time that {@code value} states; {@code infinity} removes the deadline, so
     * that only the retries end the wait.
     *
     * @throws IllegalArgumentException unless {@code value} is a duration >= 0 or {@code infinity}
     */
    public static AcquireOptions withWaitTime(AcquireOptions options, String value) {
        String text = value == null ? "" : value.trim();
        return isInfinity(text) ? options.withoutWaitTime() : options.withWaitTime(duration("waitTime", text));
    }

    /**
     * The duration that {@code value} states, in any of Spring Boot's formats (a plain number is
     * milliseconds).
     *
     * @throws IllegalArgumentException naming {@code option} when {@code value} is no duration
     */
    public static Duration duration(String option, String value) {
        try {
            return DurationStyle.detectAndParse(value.trim());
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(option + " must be a duration such as '500ms', '30s' or 'PT2S', was '"
                    + value + "'");
        }
    }

    /** Whether {@code text} is the word for "no limit", in any case and with surrounding blanks. */
    static boolean isInfinity(String text) {
        return text != null && INFINITY.equals(text.trim().toLowerCase(Locale.ROOT));
    }
}
