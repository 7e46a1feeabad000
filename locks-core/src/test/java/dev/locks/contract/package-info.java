/**
 * The contract suites every backend passes: abstract tests, subclassed once per backend (published in the
 * locks-core test-jar).
 */
package dev.locks.contract;
