/** The memory of held locks, measured with JOL over a million of them (a plain main, not JMH). */
package dev.locks.benchmarks.memory;
