package dev.locks;

import java.time.Duration;
import java.util.List;

/**
 * The keys could not all be taken within the retries or the wait time. Nothing stays locked. The message
 * names the keys, the attempts made, the time spent and the option to raise.
 */
public class LockTimeoutException extends LocksException {

    private static final long serialVersionUID = 1L;

    private final List<String> keys;
    private final int attempts;
    private final Duration elapsed;

    /**
     * @param keys the keys asked for
     * @param attempts how many attempts were made
     * @param elapsed the time spent
     * @param advice which option to raise, as a sentence for the message
     */
    public LockTimeoutException(List<String> keys, int attempts, Duration elapsed, String advice) {
        super("Could not acquire " + listed(keys) + " after " + attempts + (attempts == 1 ? " attempt" : " attempts")
                + " in " + elapsed.toMillis() + " ms: another owner holds them. " + advice);
        this.keys = List.copyOf(keys);
        this.attempts = attempts;
        this.elapsed = elapsed;
    }

    /** At most 10 keys, then "and N more": a request for many keys never makes a huge message. */
    private static String listed(List<String> keys) {
        StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < Math.min(10, keys.size()); i++) {
            text.append(i == 0 ? "" : ", ").append(keys.get(i));
        }
        if (keys.size() > 10) {
            text.append(", and ").append(keys.size() - 10).append(" more");
        }
        return text.append(']').toString();
    }

    /** The keys asked for. */
    public List<String> keys() {
        return keys;
    }

    /** How many attempts were made. */
    public int attempts() {
        return attempts;
    }

    /** The time spent trying. */
    public Duration elapsed() {
        return elapsed;
    }
}
