/**
 * The interception of {@link dev.locks.annotation.Locked} and {@link dev.locks.annotation.FetchOrCompute}:
 * advisors that any auto-proxy creator applies, and the operation sources that parse every annotation once,
 * when the application starts.
 */
package dev.locks.spring.interceptor;
