package dev.locks.spring.interceptor;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.springframework.util.ClassUtils;

/** Short, readable names of methods for messages: {@code OrderService.transfer(String, String, long)}. */
final class MethodDescriptions {

    private MethodDescriptions() {
    }

    static String describe(Class<?> targetClass, Method method) {
        Class<?> type = targetClass == null ? method.getDeclaringClass() : ClassUtils.getUserClass(targetClass);
        return ClassUtils.getShortName(type) + "." + method.getName() + Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName)
                .collect(Collectors.joining(", ", "(", ")"));
    }
}
