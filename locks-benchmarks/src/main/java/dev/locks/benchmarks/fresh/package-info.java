/** Fresh values (issue 22): a hot key's read latency while its value goes stale, timed as a plain harness. */
package dev.locks.benchmarks.fresh;
