/**
 * Crowds waiting for one key (issue 24; runnable mains, not JMH benchmarks): what a release costs the backend per
 * acquisition with 10 to 1,000 waiters ({@link dev.locks.benchmarks.waiters.WakeUps}), and 10,000 waiters as
 * {@code Mono} subscriptions beside 10,000 virtual threads ({@link dev.locks.benchmarks.waiters.WaitingCrowd}).
 */
package dev.locks.benchmarks.waiters;
