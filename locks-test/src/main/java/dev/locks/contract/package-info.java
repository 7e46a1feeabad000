/**
 * The contract suites every backend passes: abstract JUnit 5 tests ({@link dev.locks.contract.LockRegistryContract},
 * {@link dev.locks.contract.ComputeCacheContract}, and for a cache across nodes
 * {@link dev.locks.contract.ComputeNodesContract}), subclassed once per backend, the way the local, Redis and
 * in-memory-server backends of this project run them. A backend of your own subclasses them in a few lines.
 */
package dev.locks.contract;
