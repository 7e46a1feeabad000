/**
 * The in-memory lock benchmarks (JMH): a single key, several keys all-or-nothing, and random keys spread over
 * two threads, each against {@code ReentrantLock}, Spring Integration's {@code DefaultLockRegistry}, Guava's
 * {@code Striped} and a {@code ConcurrentHashMap} floor.
 */
package dev.locks.benchmarks.local;
