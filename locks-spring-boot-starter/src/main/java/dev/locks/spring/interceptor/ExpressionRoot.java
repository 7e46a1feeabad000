package dev.locks.spring.interceptor;

import java.lang.reflect.Method;

/**
 * The root object of key expressions ({@code #root}), as Spring's cache abstraction has it:
 * {@code #root.methodName}, {@code #root.args[0]}, {@code #root.target}, {@code #root.targetClass}.
 */
public final class ExpressionRoot {

    private final Method method;

    private final Object[] args;

    private final Object target;

    ExpressionRoot(Method method, Object[] args, Object target) {
        this.method = method;
        this.args = args;
        this.target = target;
    }

    /** The invoked method. */
    public Method getMethod() {
        return method;
    }

    /** The name of the invoked method. */
    public String getMethodName() {
        return method.getName();
    }

    /** The arguments of the call. */
    public Object[] getArgs() {
        return args;
    }

    /** The bean whose method is invoked (the target behind the proxy). */
    public Object getTarget() {
        return target;
    }

    /** The class of the target. */
    public Class<?> getTargetClass() {
        return target == null ? method.getDeclaringClass() : target.getClass();
    }
}
