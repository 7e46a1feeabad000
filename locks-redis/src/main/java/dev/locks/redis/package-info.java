/**
 * The Redis backend: keyed locks shared by every node of an application, on the application's own Spring
 * Data Redis {@link org.springframework.data.redis.connection.RedisConnectionFactory} (Lettuce under Spring
 * Boot), never a client of its own.
 *
 * <h2>In Redis</h2>
 * Under the key prefix ({@code locks:} by default; a storage namespace only, never shown by the API):
 * <ul>
 *   <li>{@code <prefix>lock:<key>}: a hash per held key ({@code owner}, {@code desc}, {@code token},
 *       {@code at}, and {@code infinite} for an infinite lock timeout), expiring after the holder's lock timeout
 *       (an infinite one after the node's renewed lease, never without expiry);</li>
 *   <li>{@code <prefix>queue:<key>} and {@code <prefix>queue-until:<key>}: while someone waits for that key, the
 *       waiters' tickets by order and by expiry (sorted sets), so that the key goes to its longest-waiting
 *       waiter on any node first; gone with the last waiter;</li>
 *   <li>{@code <prefix>fencing}: the counter every fencing token (and the tickets' order) comes from, so tokens
 *       increase across all nodes;</li>
 *   <li>{@code <prefix>released}: the channel a release publishes on, one message for the keys it freed that
 *       someone waits for (none when nobody waits: uncontended releases broadcast nothing); each node
 *       subscribes once.</li>
 * </ul>
 * Every acquire and every release is one Lua script call, atomic on one Redis node. On a Redis Cluster the keys
 * spread over the slots with no hash tag needed: a multi-key acquire takes them slot by slot in ascending slot
 * order, one script call per slot touched (plus one per earlier slot to raise its fencing counter), all or
 * nothing; the store's own keys share their lock key's slot, with one fencing counter per slot (see docs/design.md,
 * "Redis Cluster store").
 *
 * <h2>Client settings for quick outage detection</h2>
 * Every round trip of the library is bounded by its own timeout ({@code locks.redis.timeout}, default 2 s;
 * {@link dev.locks.redis.RedisLockRegistry.Builder#timeout}), whatever the client's command timeout: Lettuce waits
 * 60 seconds by default for a command (and queues commands while it reconnects), and without that bound an
 * outage showed only after a minute or two. Getting a connection is not part of a round trip: the first
 * connection, and each reconnection, take as long as the client's connect timeout allows. For locks, set for
 * example
 * <pre>
 * spring.data.redis.timeout=1s           # command timeout: how soon an acquire gives LockUnavailableException
 * spring.data.redis.connect-timeout=1s   # how long a (re)connect may take
 * </pre>
 * and, through a {@code LettuceClientConfigurationBuilderCustomizer} bean, {@code ClientOptions} with
 * <ul>
 *   <li>{@code disconnectedBehavior(REJECT_COMMANDS)}: fail at once while disconnected, instead of after the
 *       command timeout (an acquire that timed out is undone, which costs a second timeout otherwise);</li>
 *   <li>{@code SocketOptions} with TCP keep-alive and a TCP user timeout: a server that vanished without
 *       closing the connection is noticed in seconds, not after the operating system's minutes.</li>
 * </ul>
 * Lettuce reconnects by itself, and subscribes again, with an exponential back-off of up to 30 seconds; a
 * {@code ClientResources} with a shorter {@code reconnectDelay} shortens the recovery. Meanwhile waiters poll
 * at their retry interval, and the node tries its subscription again every second (Spring Data Redis logs
 * each failed attempt).
 */
package dev.locks.redis;
