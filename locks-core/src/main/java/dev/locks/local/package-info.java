/**
 * The in-memory backend: {@link dev.locks.local.LocalLockRegistry} and
 * {@link dev.locks.local.LocalComputeCache}, for one JVM. Nothing to install.
 */
package dev.locks.local;
