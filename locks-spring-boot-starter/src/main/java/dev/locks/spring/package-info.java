/**
 * Spring Boot auto-configuration of locks: the backend beans, the {@code locks.*} properties, the
 * interceptors of {@link dev.locks.annotation.Locked} and {@link dev.locks.annotation.FetchOrCompute}
 * ({@code dev.locks.spring.interceptor}) and the sweeper of stale locks ({@code dev.locks.spring.cleanup}).
 */
package dev.locks.spring;
