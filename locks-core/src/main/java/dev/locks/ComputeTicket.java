package dev.locks;

/**
 * The right of one computer to complete one miss, returned in {@link ComputeOutcome.Compute}.
 *
 * @param key the key being computed
 * @param id which miss and which of its computers; opaque
 */
public record ComputeTicket(String key, String id) {
}
