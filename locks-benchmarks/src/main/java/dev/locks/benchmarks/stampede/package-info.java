/** The stampede: a thousand threads missing one key at once, timed as a plain harness (not JMH). */
package dev.locks.benchmarks.stampede;
