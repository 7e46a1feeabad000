package dev.locks.spring.interceptor;

import dev.locks.AcquireOptions;
import dev.locks.annotation.Locked;
import dev.locks.spring.AcquireOptionValues;
import dev.locks.spring.LocksProperties;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.UnaryOperator;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;

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
        boolean skips = skips(locked.onTimeout(), method, values);
        return new LockedOperation(keys(locked.keys(), method, targetClass, values), overrides(locked, values), async,
                MethodDescriptions.tagName(targetClass, method), publishers, skips,
                method.getReturnType() == Optional.class);
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

    private UnaryOperator<AcquireOptions> overrides(Locked locked, AttributeValues values) {
        AcquireOptions probe = AcquireOptions.defaults();
        UnaryOperator<AcquireOptions> overrides = AttributeValues.all(
                values.option("retries", locked.retries(), probe,
                        text -> options -> AcquireOptionValues.withRetries(options, text)),
                values.option("retryInterval", locked.retryInterval(), probe, text -> {
                    Duration interval = AcquireOptionValues.duration("retryInterval", text);
                    return options -> options.withRetryInterval(interval);
                }),
                lockTimeoutAndHoldAtLeast(locked, values),
                values.option("waitTime", locked.waitTime(), probe,
                        text -> options -> AcquireOptionValues.withWaitTime(options, text)),
                modeAndPermits(locked, values));
        if (overrides != null) {
            try {
                overrides.apply(propertyDefaults());
            }
            catch (IllegalArgumentException ex) { // holdAtLeast longer than lockTimeout, one of them the property's
                boolean hold = !locked.holdAtLeast().isEmpty();
                throw values.invalid(hold ? "holdAtLeast" : "lockTimeout", hold ? locked.holdAtLeast()
                        : locked.lockTimeout(), ex.getMessage() + (hold ? "" : " (locks.hold-at-least)"),
                        "Give a lockTimeout at least as long as holdAtLeast (the attributes, or locks.lock-timeout and"
                                + " locks.hold-at-least).");
            }
        }
        return overrides;
    }

    /**
     * {@code lockTimeout} and {@code holdAtLeast}, set together, since neither may be shorter than the other: a
     * holdAtLeast longer than the lockTimeout stops startup naming both.
     */
    private static UnaryOperator<AcquireOptions> lockTimeoutAndHoldAtLeast(Locked locked, AttributeValues values) {
        UnaryOperator<AcquireOptions> lockTimeout = values.option("lockTimeout", locked.lockTimeout(),
                AcquireOptions.defaults(), text -> options -> AcquireOptionValues.withLockTimeout(options, text));
        UnaryOperator<AcquireOptions> holdAtLeast = values.option("holdAtLeast", locked.holdAtLeast(),
                AcquireOptions.defaults().withInfiniteLockTimeout(), text -> {
                    Duration hold = AcquireOptionValues.duration("holdAtLeast", text);
                    return options -> options.withHoldAtLeast(hold);
                });
        if (holdAtLeast == null) {
            return lockTimeout;
        }
        UnaryOperator<AcquireOptions> both = options -> {
            AcquireOptions cleared = options.withHoldAtLeast(Duration.ZERO);
            return holdAtLeast.apply(lockTimeout == null ? cleared : lockTimeout.apply(cleared));
        };
        if (lockTimeout != null) {
            try {
                both.apply(AcquireOptions.defaults());
            }
            catch (IllegalArgumentException ex) {
                throw values.invalid("holdAtLeast", locked.holdAtLeast(), ex.getMessage() + " (lockTimeout '"
                        + locked.lockTimeout() + "')", "Give a holdAtLeast no longer than the lockTimeout.");
            }
        }
        return both;
    }

    /**
     * {@code mode} ({@code "exclusive"} or {@code "shared"}) and {@code permits} (a whole number {@code >= 1}), set
     * together, since a shared mode with more than one permit is refused: each bad value stops startup naming it.
     */
    private UnaryOperator<AcquireOptions> modeAndPermits(Locked locked, AttributeValues values) {
        boolean shared = false;
        if (!locked.mode().isEmpty()) {
            String mode = resolve("mode", locked.mode(), values);
            shared = switch (mode.toLowerCase(Locale.ROOT)) {
                case "shared" -> true;
                case "exclusive" -> false;
                default -> throw values.invalid("mode", locked.mode(), "it is neither 'exclusive' nor 'shared'",
                        "Give mode = \"exclusive\" (the default) or \"shared\" (a read lock), or leave it empty.");
            };
        }
        int permits = 1;
        if (!locked.permits().isEmpty()) {
            String text = resolve("permits", locked.permits(), values);
            try {
                permits = Integer.parseInt(text);
            }
            catch (NumberFormatException ex) {
                permits = 0;
            }
            if (permits < 1) {
                throw values.invalid("permits", locked.permits(), "it is not a whole number >= 1",
                        "Give permits as a whole number >= 1 (how many calls may hold each key at once), or leave it"
                                + " empty for 1.");
            }
        }
        if (shared && permits > 1) {
            throw values.invalid("permits", locked.permits(), "mode = '" + locked.mode() + "' takes the keys shared,"
                    + " and a shared lock has no permits", "Give either mode = \"shared\" or permits, not both.");
        }
        if (!shared && permits == 1) {
            return null;
        }
        boolean sharedMode = shared;
        int count = permits;
        return options -> sharedMode ? options.withPermits(1).shared() : options.withPermits(count);
    }

    private String resolve(String attribute, String value, AttributeValues values) {
        try {
            return environment.resolveRequiredPlaceholders(value).trim();
        }
        catch (IllegalArgumentException ex) {
            throw values.invalid(attribute, value, ex.getMessage(), AttributeValues.OPTION_ACTION);
        }
    }

    /**
     * The defaults of {@code locks.lock-timeout} and {@code locks.hold-at-least}, against which an annotation that
     * sets only one of them is checked; {@code AcquireOptions.defaults()} when they are invalid (the properties
     * themselves then stop startup, naming them).
     */
    private AcquireOptions propertyDefaults() {
        Binder binder = Binder.get(environment);
        try {
            AcquireOptions options = AcquireOptionValues.withLockTimeout(AcquireOptions.defaults(),
                    binder.bind("locks.lock-timeout", String.class).orElse("30s"));
            return options.withHoldAtLeast(binder.bind("locks.hold-at-least", Duration.class).orElse(Duration.ZERO));
        }
        catch (RuntimeException ex) {
            return AcquireOptions.defaults();
        }
    }

    /** Whether a timeout skips the method ({@code onTimeout}, else {@code locks.on-timeout}); checks the return type. */
    private boolean skips(String onTimeout, Method method, AttributeValues values) {
        LocksProperties.OnTimeout mode;
        if (onTimeout.isEmpty()) {
            mode = Binder.get(environment).bind("locks.on-timeout", LocksProperties.OnTimeout.class)
                    .orElse(LocksProperties.OnTimeout.THROW);
        }
        else {
            String text;
            try {
                text = environment.resolveRequiredPlaceholders(onTimeout).trim();
            }
            catch (IllegalArgumentException ex) {
                throw values.invalid("onTimeout", onTimeout, ex.getMessage(), AttributeValues.OPTION_ACTION);
            }
            mode = switch (text.toLowerCase(Locale.ROOT)) {
                case "throw" -> LocksProperties.OnTimeout.THROW;
                case "skip" -> LocksProperties.OnTimeout.SKIP;
                default -> throw values.invalid("onTimeout", onTimeout, "it is neither 'throw' nor 'skip'",
                        "Give onTimeout = \"throw\" (a LockTimeoutException, the default) or \"skip\" (return"
                                + " without running the method), or leave it empty for locks.on-timeout.");
            };
        }
        if (mode != LocksProperties.OnTimeout.SKIP) {
            return false;
        }
        Class<?> type = method.getReturnType();
        if (type.isPrimitive() && type != void.class) {
            throw values.invalid("onTimeout", onTimeout.isEmpty() ? "skip (locks.on-timeout)" : onTimeout,
                    "it returns " + type.getName() + ", and a skipped call returns null, which a primitive cannot be",
                    "Return the wrapper type (" + ClassUtils.resolvePrimitiveIfNecessary(type).getSimpleName()
                            + "), an Optional or void, or give onTimeout = \"throw\".");
        }
        return true;
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
