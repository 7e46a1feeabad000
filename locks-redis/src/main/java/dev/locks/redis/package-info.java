/**
 * The Redis backend: keyed locks shared by every node of an application, on the application's own Spring
 * Data Redis {@link org.springframework.data.redis.connection.RedisConnectionFactory} (Lettuce under Spring
 * Boot), never a client of its own.
 *
 * <h2>In Redis</h2>
 * Under the key prefix ({@code locks:} by default; a storage namespace only, never shown by the API):
 * <ul>
 *   <li>{@code <prefix>lock:<key>}: a hash per held key ({@code owner}, {@code desc}, {@code token},
 *       {@code at}), expiring after the holder's lock timeout;</li>
 *   <li>{@code <prefix>fencing}: the counter every fencing token comes from, so tokens increase across all
 *       nodes;</li>
 *   <li>{@code <prefix>released}: the channel every release publishes on, one message per release; each node
 *       subscribes once.</li>
 * </ul>
 * Every acquire and every release is one Lua script call, atomic on one Redis node. On Redis Cluster, give
 * the prefix a hash tag (say {@code {locks}:}) so that all of them live in one slot.
 *
 * <h2>Client settings for quick outage detection</h2>
 * Lettuce waits 60 seconds by default for a command (and queues commands while it reconnects), so without
 * settings an outage shows only after a minute. For locks, set for example
 * <pre>
 * spring.data.redis.timeout=1s           # command timeout: how soon an acquire gives LockUnavailableException
 * spring.data.redis.connect-timeout=1s   # how long a (re)connect may take
 * </pre>
 * and, to fail at once rather than after the timeout while the client is disconnected, a
 * {@code LettuceClientConfigurationBuilderCustomizer} that sets {@code ClientOptions.disconnectedBehavior(
 * REJECT_COMMANDS)}. Lettuce reconnects by itself (and re-subscribes), with an exponential back-off of up to
 * 30 seconds; a {@code ClientResources} with a shorter {@code reconnectDelay} shortens the recovery.
 */
package dev.locks.redis;
