/**
 * Annotation-driven benchmarks: {@code @Locked} and {@code @FetchOrCompute} through the starter's interceptors
 * against the bare method and Spring's {@code @Cacheable(sync = true)} on a Caffeine cache, in one non-web
 * Spring Boot context with the same SpEL keys.
 */
package dev.locks.benchmarks.spring;
