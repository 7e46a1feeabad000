package dev.locks.spi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.NotSerializableException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;

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
 *   <li>Writing refuses, with an {@link IllegalArgumentException} naming the class, the reason and the fix, a
 *       value whose graph holds a class that reading would refuse ("is not in" the allowed classes) or that does
 *       not implement {@link java.io.Serializable}: the computation's caller learns at once what to change,
 *       rather than every later call missing (SPEC 4).</li>
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
    private final String allowedSetting;
    private final ObjectInputFilter filter;

    /**
     * @param classLoader resolves the classes of values read ({@code null}: the JDK's default resolution)
     * @param allowedClasses {@link ObjectInputFilter} patterns of the classes values may hold (no {@code !}
     *        patterns and no limits: those are this class's); must not be empty
     * @throws IllegalArgumentException when a pattern is blank or not a class pattern
     */
    public JdkValueSerializer(ClassLoader classLoader, Collection<String> allowedClasses) {
        this(classLoader, allowedClasses, "the allowed classes");
    }

    /**
     * As {@link #JdkValueSerializer(ClassLoader, Collection)}, naming in its refusals the setting that holds the
     * allowed classes ({@code locks.redis.serialization.allowed-classes}, say).
     */
    public JdkValueSerializer(ClassLoader classLoader, Collection<String> allowedClasses, String allowedSetting) {
        this.classLoader = classLoader;
        this.allowedSetting = Objects.requireNonNull(allowedSetting, "allowedSetting");
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
        return withJdkTypes(classLoader, applicationPatterns, "the allowed classes");
    }

    /** The JDK's value types and {@code applicationPatterns}, naming {@code allowedSetting} in its refusals. */
    public static JdkValueSerializer withJdkTypes(ClassLoader classLoader, Collection<String> applicationPatterns,
            String allowedSetting) {
        return new JdkValueSerializer(classLoader, withJdkTypes(applicationPatterns), allowedSetting);
    }

    /**
     * {@link #JDK_TYPES} followed by those of {@code applicationPatterns} not among them: the JDK's value types
     * stay allowed when an application adds its own classes.
     */
    public static List<String> withJdkTypes(Collection<String> applicationPatterns) {
        LinkedHashSet<String> all = new LinkedHashSet<>(JDK_TYPES);
        for (String pattern : applicationPatterns) {
            all.add(pattern == null ? null : pattern.trim());
        }
        return new ArrayList<>(all);
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
        CheckingOutputStream out = null;
        try {
            out = new CheckingOutputStream(bytes);
            out.writeObject(value);
            out.close();
        } catch (IOException e) {
            throw refused(value, out == null ? null : out.refused, e);
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

    /**
     * Why {@code value} could not be written: the first class refused (the stream then writes the exception
     * itself into its bytes, which are discarded, so the exception thrown is not the reason), else {@code e}.
     */
    private IllegalArgumentException refused(Object value, Refusal refusal, IOException e) {
        String what = "cannot store a value of " + value.getClass().getName() + ": ";
        if (refusal == null) {
            return new IllegalArgumentException(what + e.getMessage(), e);
        }
        String type = refusal.type().getName();
        if (refusal.notSerializable()) {
            return new IllegalArgumentException(what + type + " does not implement java.io.Serializable; make it"
                    + " (and every class of the value's fields) implement java.io.Serializable, or give the cache a"
                    + " serializer that can write it", e);
        }
        String name = type.startsWith("[") ? type : type.replace('$', '.');
        String pkg = refusal.type().getPackageName();
        return new IllegalArgumentException(what + type + " is not in " + allowedSetting + " (" + String.join(", ",
                allowed) + "), so it could not be read back; add '" + name + "'" + (pkg.isEmpty() ? ""
                : " or its package '" + pkg + ".*'") + " to " + allowedSetting, e);
    }

    /** The class a write refused, and whether because it is not {@link java.io.Serializable}. */
    private record Refusal(Class<?> type, boolean notSerializable) {
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

    /**
     * Refuses, as it writes them, the classes that reading would refuse, and objects that are not
     * {@link java.io.Serializable}; remembers the first refusal (writing the stream's own fatal exception after
     * it checks nothing).
     */
    private final class CheckingOutputStream extends ObjectOutputStream {

        private Refusal refused;

        CheckingOutputStream(OutputStream out) throws IOException {
            super(out);
            enableReplaceObject(true);
        }

        @Override
        protected Object replaceObject(Object obj) throws IOException {
            if (refused == null && obj != null && !(obj instanceof Serializable)) {
                refused = new Refusal(obj.getClass(), true);
                throw new NotSerializableException(obj.getClass().getName());
            }
            return obj;
        }

        @Override
        protected void annotateClass(Class<?> type) throws IOException {
            if (refused == null && filter.checkInput(new Written(type)) == ObjectInputFilter.Status.REJECTED) {
                refused = new Refusal(type, false);
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
