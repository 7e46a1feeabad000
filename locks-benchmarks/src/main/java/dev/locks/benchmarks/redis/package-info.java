/**
 * The Redis lock benchmarks (JMH), on a {@code redis-server} each fork starts on a free loopback port and stops:
 * this project against Spring Integration's {@code RedisLockRegistry} (spin and pub/sub), Redisson's
 * {@code RLock} and {@code RedissonMultiLock}, ShedLock's {@code RedisLockProvider}, and the floor, raw
 * {@code SET NX PX} and a Lua compare-and-delete through Lettuce.
 */
package dev.locks.benchmarks.redis;
