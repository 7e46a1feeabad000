package dev.locks.spi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * JDK serialization of computed values that never instantiates a class outside an allow-list: the default
 * {@link ValueSerializer} of the distributed compute caches, so that whoever can write to their store cannot
 * make the application build an object graph of their choosing.
 *
 * <ul>
 *   <li>Reading goes through an {@link ObjectInputFilter} made of the allowed patterns (the syntax of
 *       {@link ObjectInputFilter.Config#createFilter}: {@code com.example.*} for a package,
 *       {@code com.example.**} with its subpackages, a class name for one class), every other class refused,
 *       and limits: depth {@value #MAX_DEPTH}, {@value #MAX_REFERENCES} references, arrays of at most
 *       {@value #MAX_ARRAY_LENGTH} elements, {@value #MAX_BYTES} bytes. A refused or malformed value is an
 *       {@link IllegalArgumentException}, which the caches treat as a miss.</li>
 *   <li>Writing refuses, with an {@link IllegalArgumentException} naming the class, a value whose graph holds a
 *       class that reading would refuse: the computation's caller learns at once that the class must be
 *       allowed, rather than every later call missing.</li>
 *   <li>Classes are resolved with the given class loader (the application's).</li>
 * </ul>
 * Values must be {@link java.io.Serializable}; every node needs their classes with compatible
 * {@code serialVersionUID}s. Thread-safe.
 */
public final class JdkValueSerializer implements ValueSerializer {

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
     * @param classLoader resolves the classes of values read ({@code null}: the JDK's default resolution)
     * @param allowedClasses {@link ObjectInputFilter} patterns of the classes values may hold (no {@code !}
     *        patterns and no limits: those are this class's); must not be empty
     * @throws IllegalArgumentException when a pattern is blank or not a class pattern
     */
    public JdkValueSerializer(ClassLoader classLoader, Collection<String> allowedClasses) {
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
    public static JdkValueSerializer withJdkTypes(ClassLoader classLoader, Collection<String> applicationPatterns) {
        List<String> all = new ArrayList<>(JDK_TYPES);
        all.addAll(applicationPatterns);
        return new JdkValueSerializer(classLoader, all);
    }

    /** The allowed patterns, as given. */
    public List<String> allowedClasses() {
        return allowed;
    }

    /** {@inheritDoc} {@code null} is no bytes. */
    @Override
    public byte[] serialize(Object value) {
        if (value == null) {
            return EMPTY;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (ObjectOutputStream out = new CheckingOutputStream(bytes)) {
            out.writeObject(value);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot serialize a value of " + value.getClass().getName() + ": "
                    + e.getMessage(), e);
        }
        return bytes.toByteArray();
    }

    /** {@inheritDoc} No bytes (or {@code null}) are {@code null}. */
    @Override
    public Object deserialize(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return null;
        }
        if (bytes.length > MAX_BYTES) {
            throw new IllegalArgumentException("a stored value of " + bytes.length + " bytes is over the limit of "
                    + MAX_BYTES);
        }
        try (ObjectInputStream in = new LoaderInputStream(new ByteArrayInputStream(bytes), classLoader)) {
            in.setObjectInputFilter(filter);
            return in.readObject();
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            throw new IllegalArgumentException("cannot deserialize a stored value: " + e.getClass().getName(), e);
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

    /** Resolves classes with the application's class loader. */
    private static final class LoaderInputStream extends ObjectInputStream {

        private final ClassLoader classLoader;

        LoaderInputStream(InputStream in, ClassLoader classLoader) throws IOException {
            super(in);
            this.classLoader = classLoader;
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass type) throws IOException, ClassNotFoundException {
            if (classLoader != null) {
                try {
                    return Class.forName(type.getName(), false, classLoader);
                } catch (ClassNotFoundException notThere) {
                    // a primitive type, say: the JDK's own resolution below
                }
            }
            return super.resolveClass(type);
        }
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
                        + "): it could not be read back");
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
