/**
 * Operations for locks: the {@code locks} actuator endpoint ({@link dev.locks.spring.actuate.LocksEndpoint}),
 * the {@code locks} health contributor ({@link dev.locks.spring.actuate.LocksHealthIndicator}) and the
 * {@code locks.*} Micrometer meters ({@link dev.locks.spring.actuate.LocksMetrics}), and the Observations of
 * annotated calls ({@link dev.locks.spring.actuate.LocksObservations}).
 *
 * <p>Each has its own auto-configuration, active only when the application brings Spring Boot's actuator
 * (or Micrometer, for the meters and observations) itself, and off with {@code locks.enabled=false}. They read
 * counters and bounded snapshots of {@link dev.locks.LockRegistry} and {@link dev.locks.ComputeCache}, never a
 * full listing (health pings the backend once); no meter is tagged with a lock key.
 */
package dev.locks.spring.actuate;
