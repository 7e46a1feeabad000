package dev.locks.spi;

/**
 * How a distributed compute cache writes values to its store and reads them back (the JDBC backend's
 * {@code serializer}; the Redis backend takes a {@code RedisSerializer}, see its {@code AllowListJdkSerializer}).
 * The default is {@link JdkValueSerializer}. Every node of a cache must use the same. Implementations are
 * thread-safe.
 */
public interface ValueSerializer {

    /**
     * The bytes of {@code value}, never {@code null}.
     *
     * @throws RuntimeException when {@code value} cannot be written (the computation's caller gets it: the miss
     *         fails with it)
     */
    byte[] serialize(Object value);

    /**
     * The value {@code bytes} hold.
     *
     * @throws RuntimeException when they cannot be read (corrupt, a class unknown or refused): the cache treats
     *         the value as missing, removes it and computes it again
     */
    Object deserialize(byte[] bytes);
}
