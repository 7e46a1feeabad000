package dev.locks.spring.interceptor;

/**
 * Turns the value of an annotation's key expression into a key, with {@code toString()} (SPEC section 2). A
 * value whose class does not override {@link Object#toString()} is refused: its identity string (such as
 * {@code Account@1b6d3586}) differs for equal objects and on every node, so two calls for the same account
 * would not exclude each other.
 */
final class KeyValues {

    /** Whether a class has a {@code toString()} of its own (or inherited from anything but {@link Object}). */
    private static final ClassValue<Boolean> READABLE = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            try {
                return type.getMethod("toString").getDeclaringClass() != Object.class;
            } catch (NoSuchMethodException impossible) {
                return false;
            }
        }
    };

    private KeyValues() {
    }

    /**
     * The key of one value, not {@code null}.
     *
     * @param annotation {@code "@Locked"} or {@code "@FetchOrCompute"}, for the message
     * @param expression the key expression's text
     * @param method the annotated method, as {@link MethodDescriptions} describes it
     * @param position the index of the value in the expression's collection, or -1 for a single value
     * @throws IllegalArgumentException naming the class, the method and the expression when the value's class
     *         does not override {@link Object#toString()}
     */
    static String key(Object value, String annotation, String expression, String method, int position) {
        if (value instanceof String string) {
            return string;
        }
        if (!READABLE.get(value.getClass())) {
            throw new IllegalArgumentException(annotation + " key expression '" + expression + "' of " + method
                    + " yielded " + (position < 0 ? "" : "at position " + position + " ") + "a "
                    + value.getClass().getName() + ", which does not override Object.toString(): its identity "
                    + "string differs for equal objects and on every node, so it cannot be a key. Use one of its "
                    + "properties in the expression (e.g. '" + expression + ".id') or override toString().");
        }
        return value.toString();
    }
}
