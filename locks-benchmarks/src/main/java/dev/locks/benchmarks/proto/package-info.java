/**
 * Scratch prototypes of engine changes, measured beside the engine to back (or refute) a proposal: not the
 * engine, not API, and not part of the comparison ({@code Comparison} never runs them). Run them with
 * {@code java -jar locks-benchmarks/target/benchmarks.jar 'proto'}; each class says what it tries.
 */
package dev.locks.benchmarks.proto;
