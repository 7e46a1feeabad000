package dev.locks.spring;

import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * The weight of a value in the local value store under {@code locks.compute.max-bytes}: the length of its Java
 * serialization, counted without keeping the bytes. Taken once per stored value, when its computation ends.
 */
final class SerializedSize {

    private SerializedSize() {
    }

    /**
     * @throws IllegalArgumentException when the value is not {@code Serializable}: its computation fails, as it would
     *         on Redis or JDBC, and nothing is stored
     */
    static long of(Object value) {
        Counter counter = new Counter();
        try (ObjectOutputStream out = new ObjectOutputStream(counter)) {
            out.writeObject(value);
        }
        catch (NotSerializableException ex) {
            throw new IllegalArgumentException("The computed value of type " + value.getClass().getName() + " (or '"
                    + ex.getMessage() + "' within it) does not implement java.io.Serializable: with"
                    + " locks.compute.max-bytes the local value store weighs values by their serialized size. Make it"
                    + " Serializable, or bound the store by count only (locks.compute.max-entries).", ex);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return counter.count;
    }

    /** Counts what is written to it. */
    private static final class Counter extends OutputStream {

        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            count += length;
        }
    }
}
