package dev.locks.redis;

/**
 * One miss of a key across all nodes, as a node learnt it from Redis: what a waiter needs in order to take
 * the turn of a computer that timed out.
 *
 * @param id unique across nodes
 * @param turn 0 for the miss's first computer, then 1, 2, ... for each computer that took over
 * @param hint the first computer's hint, handed to every computer that takes over
 * @param ttlMillis the TTL the miss began with (0: no expiry), for a completion that gives none
 */
record RedisComputeMiss(String id, int turn, String hint, long ttlMillis) {
}
