/**
 * A scheduled job on one instance at a time: {@code @Scheduled} with the application's own {@code @SingleNode}, an
 * annotation carrying {@code @Locked(waitTime = "0", onTimeout = "skip")}.
 */
package dev.locks.sample.jobs;
