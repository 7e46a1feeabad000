package dev.locks.spring;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure an auto-proxy creator exists, as {@code @EnableTransactionManagement} does: the infrastructure
 * one when the application has none, else the application's (a stronger one is never replaced). Classes
 * are proxied rather than interfaces unless {@code spring.aop.auto} or {@code spring.aop.proxy-target-class}
 * is {@code false}, as with Spring Boot's own AOP configuration.
 */
class LocksAutoProxyRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        Binder binder = Binder.get(environment);
        if (binder.bind("spring.aop.auto", Boolean.class).orElse(true)
                && binder.bind("spring.aop.proxy-target-class", Boolean.class).orElse(true)) {
            AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
        }
    }
}
