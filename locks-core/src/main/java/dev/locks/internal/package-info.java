/**
 * Implementation shared by the backends. Public only because other modules of this project use it: not an
 * API, and free to change in any release.
 */
package dev.locks.internal;
