package dev.locks.redis;

import dev.locks.spi.JdkValueSerializer;
import java.util.Collection;
import java.util.List;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.SerializationException;

/**
 * JDK serialization of computed values that never instantiates a class outside an allow-list, as a
 * {@link RedisSerializer}: the default serializer of {@link RedisComputeCache} (and the starter's
 * {@code locksRedisSerializer} bean), so that whoever can write to Redis cannot make the application build an
 * object graph of their choosing. It is the core's {@link JdkValueSerializer} (the allow-list, the limits, the
 * refusal on writing; see there), its failures as {@link SerializationException}s, which the cache treats as a
 * miss when reading. Thread-safe.
 */
public final class AllowListJdkSerializer implements RedisSerializer<Object> {

    /** The JDK's value types: what {@link #withJdkTypes} adds to the application's own patterns. */
    public static final List<String> JDK_TYPES = JdkValueSerializer.JDK_TYPES;

    /** The deepest nesting of objects a value may have. */
    public static final int MAX_DEPTH = JdkValueSerializer.MAX_DEPTH;

    /** The most objects and handles a value may hold. */
    public static final int MAX_REFERENCES = JdkValueSerializer.MAX_REFERENCES;

    /** The longest array a value may hold. */
    public static final int MAX_ARRAY_LENGTH = JdkValueSerializer.MAX_ARRAY_LENGTH;

    /** The largest serialized value that is read (16 MiB). */
    public static final int MAX_BYTES = JdkValueSerializer.MAX_BYTES;

    /** The setting its refusals name. */
    static final String SETTING = "locks.redis.serialization.allowed-classes";

    private final JdkValueSerializer serializer;

    /**
     * @param allowedClasses {@link java.io.ObjectInputFilter} patterns of the classes values may hold (no
     *        {@code !} patterns and no limits: those are this class's); must not be empty
     * @throws IllegalArgumentException when a pattern is blank or not a class pattern
     */
    public AllowListJdkSerializer(ClassLoader classLoader, Collection<String> allowedClasses) {
        this(new JdkValueSerializer(classLoader, allowedClasses, SETTING));
    }

    private AllowListJdkSerializer(JdkValueSerializer serializer) {
        this.serializer = serializer;
    }

    /** The JDK's value types ({@link #JDK_TYPES}) and {@code applicationPatterns}. */
    public static AllowListJdkSerializer withJdkTypes(ClassLoader classLoader, Collection<String> applicationPatterns) {
        return new AllowListJdkSerializer(JdkValueSerializer.withJdkTypes(classLoader, applicationPatterns, SETTING));
    }

    /** The allowed patterns, as given. */
    public List<String> allowedClasses() {
        return serializer.allowedClasses();
    }

    @Override
    public byte[] serialize(Object value) {
        try {
            return serializer.serialize(value);
        } catch (IllegalArgumentException e) {
            throw new SerializationException(e.getMessage(), e); // the store fails the call with e's type and message
        }
    }

    @Override
    public Object deserialize(byte[] bytes) {
        try {
            return serializer.deserialize(bytes);
        } catch (IllegalArgumentException e) {
            throw new SerializationException(e.getMessage(), e.getCause() != null ? e.getCause() : e);
        }
    }
}
