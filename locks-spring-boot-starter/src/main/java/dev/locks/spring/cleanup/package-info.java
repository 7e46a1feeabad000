/**
 * The scheduled sweeper of stale locks, and the scheduling the starter brings for it when the application
 * has none.
 */
package dev.locks.spring.cleanup;
