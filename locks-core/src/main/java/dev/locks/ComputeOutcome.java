package dev.locks;

/** What {@link ComputeCache#begin} found: one of four records. */
public sealed interface ComputeOutcome {

    /** The value was stored and unexpired. */
    record Hit(Object value) implements ComputeOutcome {
    }

    /**
     * The caller is the computer: compute, then call {@link ComputeCache#complete} or
     * {@link ComputeCache#fail} with the ticket.
     *
     * @param hint the first computer's hint (for a promoted computer), never {@code null}
     */
    record Compute(ComputeTicket ticket, String hint) implements ComputeOutcome {
    }

    /** The caller waited and another computer's value came. */
    record Value(Object value) implements ComputeOutcome {
    }

    /** The caller waited and the computer failed with this error. */
    record Failed(Throwable error) implements ComputeOutcome {
    }
}
