package dev.locks.spring.interceptor;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.springframework.util.ClassUtils;

/** Short, readable names of methods for messages: {@code OrderService.transfer(String, String, long)}. */
final class MethodDescriptions {

    private MethodDescriptions() {
    }

    /**
     * {@code <simple class name>.<method name>}, the {@code name} tag of the meters of an annotated call
     * (overloads share it); a class without a simple name (anonymous) shows its short name.
     */
    static String tagName(Class<?> targetClass, Method method) {
        Class<?> type = targetClass == null ? method.getDeclaringClass() : ClassUtils.getUserClass(targetClass);
        String simple = type.getSimpleName();
        return (simple.isEmpty() ? ClassUtils.getShortName(type) : simple) + "." + method.getName();
    }

    static String describe(Class<?> targetClass, Method method) {
        Class<?> type = targetClass == null ? method.getDeclaringClass() : ClassUtils.getUserClass(targetClass);
        return ClassUtils.getShortName(type) + "." + method.getName() + Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName)
                .collect(Collectors.joining(", ", "(", ")"));
    }
}
