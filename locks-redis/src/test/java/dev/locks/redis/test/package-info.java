/**
 * Test support for Redis-backed code, with real {@code redis-server} processes and no Docker:
 * {@link dev.locks.redis.test.RedisServer} (a server on a free loopback port that tests stop, kill and
 * restart), {@link dev.locks.redis.test.RedisServerExtension} (one per test class),
 * {@link dev.locks.redis.test.RedisConnections} (Lettuce factories with short timeouts),
 * {@link dev.locks.redis.test.RedisMonitor} (counts the commands clients send) and
 * {@link dev.locks.redis.test.RespClient} (inspects a server around the client under test).
 */
package dev.locks.redis.test;
