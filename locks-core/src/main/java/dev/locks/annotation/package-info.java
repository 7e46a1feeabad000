/**
 * {@link dev.locks.annotation.Locked} and {@link dev.locks.annotation.FetchOrCompute}, interpreted by the
 * Spring Boot starter ({@code locks-spring-boot-starter}).
 */
package dev.locks.annotation;
