package dev.locks.redis;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.springframework.core.ConfigurableObjectInputStream;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.SerializationException;

/**
 * JDK serialization of computed values that never instantiates a class outside an allow-list: the default
 * serializer of {@link RedisComputeCache} (and the starter's {@code locksRedisSerializer} bean), so that whoever
 * can write to Redis cannot make the application build an object graph of their choosing.
 *
 * <ul>
 *   <li>Reading goes through an {@link ObjectInputFilter} made of the allowed patterns (the syntax of
 *       {@link ObjectInputFilter.Config#createFilter}: {@code com.example.*} for a package,
 *       {@code com.example.**} with its subpackages, a class name for one class), every other class refused,
 *       and limits: depth {@value #MAX_DEPTH}, {@value #MAX_REFERENCES} references, arrays of at most
 *       {@value #MAX_ARRAY_LENGTH} elements, {@value #MAX_BYTES} bytes. A refused or malformed value is a
 *       {@link SerializationException}, which the cache treats as a miss.</li>
 *   <li>Writing refuses, with a {@link SerializationException} naming the class, a value whose graph holds a
 *       class that reading would refuse: the computation's caller learns at once that the class must be
 *       allowed, rather than every later call missing.</li>
 *   <li>Classes are resolved with the given class loader (the application's).</li>
 * </ul>
 * Values must be {@link java.io.Serializable}; every node needs their classes with compatible
 * {@code serialVersionUID}s. Thread-safe.
 */
public final class AllowListJdkSerializer implements RedisSerializer<Object> {

    /** The JDK's value types: what {@link #withJdkTypes} adds to the application's own patterns. */
    public static final List<String> JDK_TYPES = List.of("java.lang.*", "java.util.**", "java.time.**", "java.math.*");

    /** The deepest nesting of objects a value may have. */
    public static final int MAX_DEPTH = 20;

    /** The most objects and handles a value may hold. */
    public static final int MAX_REFERENCES = 100_000;

    /** The longest array a value may hold. */
    public static final int MAX_ARRAY_LENGTH = 1_000_000;

    /** The largest serialized value that is read (16 MiB). */
    public static final int MAX_BYTES = 16 * 1024 * 1024;

    private static final byte[] EMPTY = new byte[0];

    private final ClassLoader classLoader;
    private final List<String> allowed;
    private final ObjectInputFilter filter;

    /**
     * @param allowedClasses {@link ObjectInputFilter} patterns of the classes values may hold (no {@code !}
     *        patterns and no limits: those are this class's); must not be empty
     * @throws IllegalArgumentException when a pattern is blank or not a class pattern
     */
    public AllowListJdkSerializer(ClassLoader classLoader, Collection<String> allowedClasses) {
        this.classLoader = classLoader;
        this.allowed = List.copyOf(checked(allowedClasses));
        StringBuilder spec = new StringBuilder().append("maxdepth=").append(MAX_DEPTH)
                .append(";maxrefs=").append(MAX_REFERENCES)
                .append(";maxarray=").append(MAX_ARRAY_LENGTH)
                .append(";maxbytes=").append(MAX_BYTES);
        allowed.forEach(pattern -> spec.append(';').append(pattern));
        this.filter = ObjectInputFilter.Config.createFilter(spec.append(";!*").toString());
    }

    /** The JDK's value types ({@link #JDK_TYPES}) and {@code applicationPatterns}. */
    public static AllowListJdkSerializer withJdkTypes(ClassLoader classLoader, Collection<String> applicationPatterns) {
        List<String> all = new ArrayList<>(JDK_TYPES);
        all.addAll(applicationPatterns);
        return new AllowListJdkSerializer(classLoader, all);
    }

    /** The allowed patterns, as given. */
    public List<String> allowedClasses() {
        return allowed;
    }

    @Override
    public byte[] serialize(Object value) {
        if (value == null) {
            return EMPTY;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (ObjectOutputStream out = new CheckingOutputStream(bytes)) {
            out.writeObject(value);
        } catch (IOException e) {
            throw new SerializationException("cannot serialize a value of " + value.getClass().getName() + ": "
                    + e.getMessage(), e);
        }
        return bytes.toByteArray();
    }

    @Override
    public Object deserialize(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return null;
        }
        if (bytes.length > MAX_BYTES) {
            throw new SerializationException("a stored value of " + bytes.length + " bytes is over the limit of "
                    + MAX_BYTES);
        }
        try (ObjectInputStream in = new ConfigurableObjectInputStream(new ByteArrayInputStream(bytes), classLoader)) {
            in.setObjectInputFilter(filter);
            return in.readObject();
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            throw new SerializationException("cannot deserialize a stored value: " + e.getClass().getName(), e);
        }
    }

    private static List<String> checked(Collection<String> patterns) {
        if (patterns == null || patterns.isEmpty()) {
            throw new IllegalArgumentException("allowedClasses must name at least one class pattern");
        }
        for (String pattern : patterns) {
            if (pattern == null || pattern.isBlank() || pattern.trim().startsWith("!") || pattern.contains("=")
                    || pattern.contains(";")) {
                throw new IllegalArgumentException("'" + pattern + "' is not an allowed-class pattern: give a class"
                        + " name, 'com.example.*' for a package or 'com.example.**' with its subpackages");
            }
        }
        return List.copyOf(patterns.stream().map(String::trim).toList());
    }

    /** Refuses, as it writes them, the classes that reading would refuse. */
    private final class CheckingOutputStream extends ObjectOutputStream {

        CheckingOutputStream(OutputStream out) throws IOException {
            super(out);
        }

        @Override
        protected void annotateClass(Class<?> type) throws IOException {
            if (filter.checkInput(new Written(type)) == ObjectInputFilter.Status.REJECTED) {
                throw new InvalidClassException(type.getName(), "not an allowed class (" + String.join(", ", allowed)
                        + "; see locks.redis.serialization.allowed-classes): it could not be read back");
            }
        }

        @Override
        protected void annotateProxyClass(Class<?> type) throws IOException {
            throw new InvalidClassException(type.getName(), "proxy classes are never read back");
        }
    }

    /** A class as the filter would see it on reading, within every limit. */
    private record Written(Class<?> serialClass) implements ObjectInputFilter.FilterInfo {

        @Override
        public long arrayLength() {
            return -1;
        }

        @Override
        public long depth() {
            return 1;
        }

        @Override
        public long references() {
            return 1;
        }

        @Override
        public long streamBytes() {
            return 1;
        }
    }
}
