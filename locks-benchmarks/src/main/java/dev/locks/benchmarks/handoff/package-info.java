/**
 * Contended hand-off: two threads passing one key back and forth, timed from release to the other's acquire
 * (a plain harness, not JMH), against {@code ReentrantLock} and the seed's polling design.
 */
package dev.locks.benchmarks.handoff;
