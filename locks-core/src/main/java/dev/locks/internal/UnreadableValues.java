package dev.locks.internal;

import dev.locks.LocksClock;
import dev.locks.LocksObserver.ComputeResult;
import java.io.InvalidClassException;
import java.lang.System.Logger.Level;

/**
 * Reports stored values that could not be read (SPEC 4): each one counted ({@code outcome=unreadable}), and
 * logged at {@code WARN} once per key and minute, naming the key and the kind of failure but never the value
 * nor a message that might quote it. Remembers at most {@value #REMEMBERED} keys (then starts afresh). Not an
 * API.
 */
final class UnreadableValues {

    private static final System.Logger LOG = System.getLogger(UnreadableValues.class.getName());
    static final int REMEMBERED = KeyWarnings.REMEMBERED;

    private final ComputeEvents events;
    private final KeyWarnings warnings;

    public UnreadableValues(ComputeEvents events, LocksClock clock) {
        this.events = events;
        this.warnings = new KeyWarnings(clock);
    }

    /**
     * The value of {@code key} could not be read, for {@code cause}; it is removed.
     *
     * @return whether this report was logged (the first for the key in a minute)
     */
    public boolean report(String key, Throwable cause) {
        events.count(ComputeResult.UNREADABLE);
        if (!warnings.shouldWarn(key)) {
            return false;
        }
        LOG.log(Level.WARNING, "the stored value of '" + key + "' could not be read (" + kind(cause)
                + "); it is removed and computed again. This is logged once a minute per key.");
        return true;
    }

    /** The failure's kind: its exception classes, and the class a filter refused; no message (it may quote bytes). */
    static String kind(Throwable cause) {
        StringBuilder kind = new StringBuilder();
        for (Throwable each = cause; each != null && kind.length() < 500; each = each.getCause()) {
            if (kind.length() > 0) {
                kind.append(" caused by ");
            }
            kind.append(each.getClass().getName());
            if (each instanceof InvalidClassException invalid && invalid.classname != null) {
                kind.append(" of class ").append(invalid.classname);
            }
            if (each.getCause() == each) {
                break;
            }
        }
        return kind.toString();
    }
}
