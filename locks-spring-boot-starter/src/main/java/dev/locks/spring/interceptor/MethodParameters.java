package dev.locks.spring.interceptor;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import org.springframework.core.ParameterNameDiscoverer;

/**
 * The variables a key expression may use for one method: its parameters by name ({@code #from}) and by
 * position ({@code #p0}, {@code #a0}), mapped once to argument indexes.
 */
final class MethodParameters {

    private final Map<String, Integer> indexes;

    private final String[] names;

    private final int count;

    private MethodParameters(Map<String, Integer> indexes, String[] names, int count) {
        this.indexes = indexes;
        this.names = names;
        this.count = count;
    }

    static MethodParameters of(Method method, ParameterNameDiscoverer discoverer) {
        int count = method.getParameterCount();
        String[] names = discoverer.getParameterNames(method);
        Map<String, Integer> indexes = new HashMap<>(count * 4);
        for (int i = 0; i < count; i++) {
            indexes.put("p" + i, i);
            indexes.put("a" + i, i);
        }
        if (names != null) {
            for (int i = 0; i < names.length; i++) {
                indexes.put(names[i], i);
            }
        }
        return new MethodParameters(indexes, names, count);
    }

    /** The argument index of variable {@code name}, or -1 when it is none of the parameters. */
    int indexOf(String name) {
        Integer index = indexes.get(name);
        return index == null ? -1 : index;
    }

    /** For messages: what the expression may refer to. */
    String describe() {
        if (count == 0) {
            return "the method has no parameters";
        }
        String positions = "#p0..#p" + (count - 1) + " or #a0..#a" + (count - 1);
        return names == null
                ? "the parameter names are not known (compile with '-parameters'), so refer to them by position: "
                        + positions
                : "the parameters are " + String.join(", ", names) + ", or by position " + positions;
    }
}
