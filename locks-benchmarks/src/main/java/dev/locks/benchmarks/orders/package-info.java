/**
 * The mixed-order workload: orders of one to three SKUs on two Redis nodes, for SPEC "No starvation" (a
 * runnable main, not a JMH benchmark).
 */
package dev.locks.benchmarks.orders;
