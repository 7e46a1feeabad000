package dev.locks;

/**
 * A computation failed where its exception object could not travel: on another node of a distributed
 * backend. Carries the original exception's class name and message.
 */
public class ComputeFailedException extends LocksException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final String originalClassName;
    private final String originalMessage;

    public ComputeFailedException(String key, String originalClassName, String originalMessage) {
        super("Computing '" + key + "' failed on another node with " + originalClassName
                + (originalMessage == null ? "" : ": " + originalMessage));
        this.key = key;
        this.originalClassName = originalClassName;
        this.originalMessage = originalMessage;
    }

    /** The key whose computation failed. */
    public String key() {
        return key;
    }

    /** The fully qualified class name of the computer's exception. */
    public String originalClassName() {
        return originalClassName;
    }

    /** The message of the computer's exception; may be {@code null}. */
    public String originalMessage() {
        return originalMessage;
    }
}
