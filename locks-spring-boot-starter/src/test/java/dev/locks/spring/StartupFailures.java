package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/**
 * Analyzes a startup failure as Spring Boot does when an application fails to start: every
 * {@link FailureAnalyzer} registered in {@code META-INF/spring.factories} (Spring Boot's and ours), in
 * order, the first answer wins. Tests thereby also check that our analyzers are registered.
 */
public final class StartupFailures {

    private StartupFailures() {
    }

    /**
     * Starts {@code runner} with a bean of {@code beanClass}, checks that startup failed for
     * {@code rootCause}, and returns the analysis of the failure.
     */
    public static FailureAnalysis analyzeStartup(ApplicationContextRunner runner, Class<?> beanClass,
            Class<? extends Throwable> rootCause) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.withBean(beanClass).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(rootCause);
            analysis[0] = analyze(context.getStartupFailure());
        });
        return analysis[0];
    }

    public static FailureAnalysis analyze(Throwable failure) {
        ArgumentResolver arguments = ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
                .and(Environment.class, null);
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader
                .forDefaultResourceLocation(StartupFailures.class.getClassLoader())
                .load(FailureAnalyzer.class, arguments, FailureHandler.handleMessage((message, ex) -> {
                    // as Spring Boot does: an analyzer that cannot be made here (a class it needs is absent) is skipped
                }));
        AnnotationAwareOrderComparator.sort(analyzers);
        for (FailureAnalyzer analyzer : analyzers) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        throw new AssertionError("No failure analyzer explains " + failure, failure);
    }
}
