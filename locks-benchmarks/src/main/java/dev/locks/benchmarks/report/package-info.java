/** Runs the whole comparison in one command and writes its tables: medians, spreads and ratios of one run. */
package dev.locks.benchmarks.report;
