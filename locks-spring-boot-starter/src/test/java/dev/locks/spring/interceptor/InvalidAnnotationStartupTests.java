package dev.locks.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locks.annotation.EvictComputed;
import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.spring.LocksAutoConfiguration;
import dev.locks.spring.StartupFailures;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Every annotation is parsed and checked at startup, even on methods never called: an invalid one stops
 * the application with a failure analysis that names the class, the method and the expression.
 */
class InvalidAnnotationStartupTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration.class))
            .withPropertyValues("app.lock-timeout=5s");

    @Test
    void syntaxErrorShouldStopStartup() {
        FailureAnalysis analysis = failure(SyntaxError.class);
        assertThat(analysis.getDescription()).contains("@Locked annotation of method 'pay'")
                .contains("class '" + SyntaxError.class.getName() + "'")
                .contains("Method: InvalidAnnotationStartupTests.SyntaxError.pay(String)")
                .contains("Attribute: keys")
                .contains("Value: ''account:' +'")
                .contains("not a valid SpEL expression");
        assertThat(analysis.getAction()).contains("Fix the expression").contains("#p0").contains("@beanName");
    }

    @Test
    void unknownParameterShouldStopStartupEvenOnALaterMethod() {
        FailureAnalysis analysis = failure(UnknownParameter.class);
        assertThat(analysis.getDescription()).contains("method 'second'")
                .contains("UnknownParameter")
                .contains("Value: '#nope'")
                .contains("'#nope' is not a parameter of the method: the parameters are from, to")
                .contains("#p0..#p1");
    }

    @Test
    void positionalRootAndThisReferencesShouldBeAccepted() {
        runner.withBean(Positional.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void unknownBeanShouldStopStartup() {
        FailureAnalysis analysis = failure(UnknownBean.class);
        assertThat(analysis.getDescription()).contains("Value: '@nowhere.name'")
                .contains("there is no bean named 'nowhere'");
    }

    @Test
    void functionCallShouldStopStartup() {
        assertThat(failure(FunctionCall.class).getDescription()).contains("'#hash(...)' calls a function");
    }

    @Test
    void invalidDurationShouldStopStartupNamingTheAttribute() {
        FailureAnalysis analysis = failure(BadDuration.class);
        assertThat(analysis.getDescription()).contains("Attribute: retryInterval")
                .contains("Value: 'soon'")
                .contains("retryInterval must be a duration such as '500ms'");
        assertThat(analysis.getAction()).contains("durations as '500ms', '30s' or 'PT2S'");
    }

    @Test
    void unresolvablePlaceholderShouldStopStartup() {
        FailureAnalysis analysis = failure(MissingPlaceholder.class);
        assertThat(analysis.getDescription()).contains("Attribute: waitTime")
                .contains("Value: '${app.missing}'")
                .contains("app.missing");
    }

    @Test
    void invalidRetriesShouldStopStartup() {
        assertThat(failure(BadRetries.class).getDescription()).contains("Attribute: retries")
                .contains("retries must be >= 0");
    }

    @Test
    void zeroLockTimeoutShouldStopStartup() {
        assertThat(failure(ZeroLockTimeout.class).getDescription()).contains("Attribute: lockTimeout")
                .contains("lockTimeout must be a duration > 0");
    }

    @Test
    void resolvedPlaceholdersShouldBeAccepted() {
        runner.withBean(Placeholders.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void emptyFetchOrComputeKeyShouldStopStartup() {
        FailureAnalysis analysis = failure(EmptyKey.class);
        assertThat(analysis.getDescription()).contains("@FetchOrCompute annotation of method 'quote'")
                .contains("Attribute: key")
                .contains("the expression is empty");
    }

    @Test
    void fetchOrComputeOfAFutureShouldStopStartup() {
        FailureAnalysis analysis = failure(AsyncQuote.class);
        assertThat(analysis.getDescription()).contains("@FetchOrCompute annotation of method 'quote'")
                .contains("it returns java.util.concurrent.CompletableFuture");
        assertThat(analysis.getAction()).contains("Return the value itself");
    }

    @Test
    void fetchOrComputeOfNothingShouldStopStartup() {
        assertThat(failure(VoidQuote.class).getDescription()).contains("it returns nothing");
    }

    @Test
    void negativeTtlShouldStopStartup() {
        assertThat(failure(NegativeTtl.class).getDescription()).contains("Attribute: ttl")
                .contains("ttl must be a duration >= 0");
    }

    @Test
    void lockedOnAFutureOtherThanCompletableFutureShouldStopStartup() {
        assertThat(failure(PlainFuture.class).getDescription())
                .contains("it returns java.util.concurrent.Future");
    }

    @Test
    void badKeyExpressionOfEvictComputedShouldStopStartupNamingClassMethodAndExpression() {
        FailureAnalysis analysis = failure(BadEviction.class);
        assertThat(analysis.getDescription()).contains("@EvictComputed annotation of method 'update'")
                .contains("class '" + BadEviction.class.getName() + "'")
                .contains("Attribute: key")
                .contains("Value: '#nope'")
                .contains("'#nope' is not a parameter of the method");
    }

    @Test
    void emptyNameOfEvictComputedShouldStopStartup() {
        assertThat(failure(UnnamedEviction.class).getDescription()).contains("@EvictComputed")
                .contains("Attribute: name").contains("it is empty");
    }

    private FailureAnalysis failure(Class<?> beanClass) {
        return StartupFailures.analyzeStartup(runner, beanClass, InvalidLocksAnnotationException.class);
    }

    static class SyntaxError {

        @Locked(keys = "'account:' +")
        public void pay(String account) {
        }
    }

    static class UnknownParameter {

        @Locked(keys = {"#from", "#to"})
        public void first(String from, String to) {
        }

        @Locked(keys = {"#from", "#nope"})
        public void second(String from, String to) {
        }
    }

    static class Positional {

        @Locked(keys = {"#p0", "#a1", "#root.methodName", "#root.args[0]", "#this.args[1]", "{#p0, #p1}.?[#this != null]"})
        public void pay(String from, String to) {
        }
    }

    static class UnknownBean {

        @Locked(keys = "@nowhere.name")
        public void pay(String account) {
        }
    }

    static class FunctionCall {

        @Locked(keys = "#hash(#account)")
        public void pay(String account) {
        }
    }

    static class BadDuration {

        @Locked(keys = "#account", retryInterval = "soon")
        public void pay(String account) {
        }
    }

    static class MissingPlaceholder {

        @Locked(keys = "#account", waitTime = "${app.missing}")
        public void pay(String account) {
        }
    }

    static class BadRetries {

        @Locked(keys = "#account", retries = "-2")
        public void pay(String account) {
        }
    }

    static class ZeroLockTimeout {

        @Locked(keys = "#account", lockTimeout = "0ms")
        public void pay(String account) {
        }
    }

    static class Placeholders {

        @Locked(keys = "#account", lockTimeout = "${app.lock-timeout}", waitTime = "${app.wait:1s}",
                retries = "${app.retries:infinity}")
        public void pay(String account) {
        }

        @FetchOrCompute(key = "#symbol", ttl = "${app.ttl:0}", computeTimeout = "PT1S", waitTime = "250ms")
        public Optional<String> quote(String symbol) {
            return Optional.empty();
        }
    }

    static class EmptyKey {

        @FetchOrCompute(key = " ")
        public String quote(String symbol) {
            return symbol;
        }
    }

    static class AsyncQuote {

        @FetchOrCompute(key = "#symbol")
        public CompletableFuture<String> quote(String symbol) {
            return CompletableFuture.completedFuture(symbol);
        }
    }

    static class VoidQuote {

        @FetchOrCompute(key = "#symbol")
        public void quote(String symbol) {
        }
    }

    static class NegativeTtl {

        @FetchOrCompute(key = "#symbol", ttl = "-1s")
        public String quote(String symbol) {
            return symbol;
        }
    }

    static class PlainFuture {

        @Locked(keys = "#id")
        public java.util.concurrent.Future<String> run(String id) {
            return CompletableFuture.completedFuture(id);
        }
    }

    static class BadEviction {

        @EvictComputed(name = "quotes", key = "#nope")
        public void update(String symbol) {
        }
    }

    static class UnnamedEviction {

        @EvictComputed(name = " ", key = "#symbol")
        public void update(String symbol) {
        }
    }
}
