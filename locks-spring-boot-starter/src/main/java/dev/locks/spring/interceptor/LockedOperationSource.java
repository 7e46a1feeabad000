package dev.locks.spring.interceptor;

import dev.locks.AcquireOptions;
import dev.locks.annotation.Locked;
import dev.locks.spring.AcquireOptionValues;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.UnaryOperator;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;

/**
 * Parses {@link Locked} annotations once per bean class: the key expressions (checked against the
 * method's parameters and the bean factory) and the option attributes (placeholders resolved, durations
 * parsed). A method returning Reactor's {@code Mono} or {@code Flux}, or Kotlin's {@code Flow}, takes its keys on
 * subscription ({@link ReactiveLockedCalls}); so does a Kotlin {@code suspend} function, which Spring's AOP runs as
 * a {@code Mono} when kotlinx-coroutines-reactor and kotlin-reflect are on the classpath (without them it is refused
 * at startup). Other reactive return types are refused at startup: they finish after the call returns, and the
 * lock would not cover their work.
 */
public class LockedOperationSource extends AnnotationOperationSource<Locked, LockedOperation> {

    private final Environment environment;

    private final KeyExpressions expressions;

    public LockedOperationSource(Environment environment, BeanFactory beanFactory) {
        super(Locked.class);
        this.environment = environment;
        this.expressions = new KeyExpressions(beanFactory);
    }

    @Override
    protected LockedOperation parse(Locked locked, Method method, Class<?> targetClass) {
        AttributeValues values = new AttributeValues(environment, Locked.class, targetClass, method);
        LockedOperation.Publishers publishers = publishers(method, values);
        boolean async = publishers == LockedOperation.Publishers.NONE && isAsync(method, values);
        return new LockedOperation(keys(locked.keys(), method, targetClass, values), overrides(locked, values), async,
                MethodDescriptions.tagName(targetClass, method), publishers);
    }

    private LockKeys keys(String[] texts, Method method, Class<?> targetClass, AttributeValues values) {
        if (texts.length == 0) {
            return LockKeys.constant(targetClass.getName() + "." + method.getName());
        }
        MethodParameters parameters = expressions.parameters(method);
        Expression[] parsed = new Expression[texts.length];
        for (int i = 0; i < texts.length; i++) {
            parsed[i] = values.expression("keys", texts[i], expressions, parameters);
        }
        return LockKeys.of(MethodDescriptions.describe(targetClass, method), expressions, parameters, texts, parsed);
    }

    private static UnaryOperator<AcquireOptions> overrides(Locked locked, AttributeValues values) {
        AcquireOptions probe = AcquireOptions.defaults();
        return AttributeValues.all(
                values.option("retries", locked.retries(), probe,
                        text -> options -> AcquireOptionValues.withRetries(options, text)),
                values.option("retryInterval", locked.retryInterval(), probe, text -> {
                    Duration interval = AcquireOptionValues.duration("retryInterval", text);
                    return options -> options.withRetryInterval(interval);
                }),
                values.option("lockTimeout", locked.lockTimeout(), probe,
                        text -> options -> AcquireOptionValues.withLockTimeout(options, text)),
                values.option("waitTime", locked.waitTime(), probe,
                        text -> options -> AcquireOptionValues.withWaitTime(options, text)));
    }

    private static boolean isAsync(Method method, AttributeValues values) {
        Class<?> type = method.getReturnType();
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return true;
        }
        if (ReturnTypes.isDeferred(type)) {
            throw values.invalid(null, null, "it returns " + type.getName() + ", and @Locked can hold its locks until"
                    + " completion only for CompletableFuture, CompletionStage, Reactor's Mono and Flux, and Kotlin's"
                    + " suspend functions and Flow",
                    "Declare the return type as CompletableFuture, CompletionStage, Mono or Flux, or return the result"
                            + " itself.");
        }
        return false;
    }

    private static LockedOperation.Publishers publishers(Method method, AttributeValues values) {
        if (ReturnTypes.isSuspending(method)) {
            String missing = ReturnTypes.missingForSuspending();
            if (missing != null) {
                throw values.invalid(null, null, "it is a Kotlin suspend function, and without " + missing + " on the"
                        + " classpath Spring calls it as a plain method, which returns at its first suspension point:"
                        + " its body would run on without the lock",
                        "Add " + missing + " to the application (Spring then runs suspend functions as coroutines"
                                + " that @Locked holds its keys around), or lock inside the coroutine with"
                                + " LockRegistry.withLocks (on a dispatcher that may block, such as Dispatchers.IO).");
            }
            return ReturnTypes.isFlow(ReturnTypes.suspendingResult(method)) ? LockedOperation.Publishers.FLUX
                    : LockedOperation.Publishers.MONO;
        }
        Class<?> type = method.getReturnType();
        if (ReturnTypes.isMono(type)) {
            return LockedOperation.Publishers.MONO;
        }
        if (ReturnTypes.isFlux(type)) {
            return LockedOperation.Publishers.FLUX;
        }
        // Flow itself: a SharedFlow or StateFlow method could not return the Flow that holds the keys (refused below)
        if (type.getName().equals(ReturnTypes.FLOW)) {
            if (!ReturnTypes.hasCoroutinesReactor()) {
                throw values.invalid(null, null, "it returns kotlinx.coroutines.flow.Flow, which @Locked adapts to a"
                        + " Reactor Flux with " + ReturnTypes.COROUTINES_REACTOR + ", and that is not on the classpath",
                        "Add " + ReturnTypes.COROUTINES_REACTOR + " to the application.");
            }
            return LockedOperation.Publishers.FLOW;
        }
        return LockedOperation.Publishers.NONE;
    }
}
