package dev.locks.redis;

import dev.locks.spi.ValueSerializer;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.SerializationException;

/**
 * The {@link RedisSerializer} a {@link RedisComputeCache} is given, as the core's {@link ValueSerializer}: what it
 * cannot write is an {@link IllegalArgumentException}, the same type on every backend (SPEC 4), with the
 * serializer's message; what it cannot read, its own exception (the core makes it a miss).
 */
record RedisValueSerializer(RedisSerializer<Object> serializer) implements ValueSerializer {

    @Override
    public byte[] serialize(Object value) {
        try {
            return serializer.serialize(value);
        } catch (SerializationException e) {
            if (e.getCause() instanceof IllegalArgumentException refused) {
                throw refused; // the default serializer's: names the class, the reason and the fix
            }
            throw new IllegalArgumentException("cannot store a value of " + value.getClass().getName()
                    + ": the cache's serializer refused it (" + e.getMessage() + ")", e);
        }
    }

    @Override
    public Object deserialize(byte[] bytes) {
        return serializer.deserialize(bytes);
    }
}
