/**
 * Benchmarks of locks against the libraries a Spring Boot developer would pick instead, each measured in
 * the same run as its rivals and its floor (the least any implementation could do). {@link
 * dev.locks.benchmarks.report.Comparison} runs them all and writes the tables of {@code docs/benchmarks.md}.
 */
package dev.locks.benchmarks;
