package dev.locks.spring;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import java.util.Locale;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.ClassUtils;

/**
 * Logs once, at INFO when the application has started its singletons, which backend it locks with and why;
 * and a WARN when the application has a {@code RedisConnectionFactory} but not {@code dev.locks:locks-redis},
 * and so locks in memory where it probably meant to lock across nodes; and an INFO for each {@code LockRegistry}
 * or {@code ComputeCache} bean of the application's own, which the starter's settings, observers (meters) and
 * builder customizers do not reach.
 */
public class LocksStartupReport
        implements SmartInitializingSingleton, BeanFactoryAware, BeanClassLoaderAware, EnvironmentAware {

    private static final Log logger = LogFactory.getLog(LocksStartupReport.class);

    private ListableBeanFactory beanFactory;

    private Environment environment;

    private ClassLoader classLoader = ClassUtils.getDefaultClassLoader();

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
        this.beanFactory = (ListableBeanFactory) beanFactory;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (logger.isInfoEnabled()) {
            logger.info(describe());
        }
        String missingModule = BackendSelection.missingRedisModuleWarning(environment, beanFactory, classLoader);
        if (missingModule != null) {
            logger.warn(missingModule);
        }
        if (logger.isInfoEnabled()) {
            ownBean(LockRegistry.class, LockRegistryBuilderCustomizer.class);
            ownBean(ComputeCache.class, ComputeCacheBuilderCustomizer.class);
        }
    }

    /**
     * Says, for a {@code LockRegistry} or {@code ComputeCache} bean of the application's own, that what the
     * starter builds its own with does not reach it.
     */
    private void ownBean(Class<?> type, Class<?> customizer) {
        for (String name : beanFactory.getBeanNamesForType(type, true, false)) {
            if (!isAutoConfigured(name)) {
                logger.info("The application's own " + type.getSimpleName() + " bean '" + name + "' is used as it is:"
                        + " the locks.* settings, the LocksObserver beans (the locks.* meters, the health's last sweep)"
                        + " and " + customizer.getSimpleName() + " beans reach only the one the starter builds. To keep"
                        + " them, adjust the starter's with a " + customizer.getSimpleName() + " bean instead of"
                        + " replacing it, or build yours with the LocksObserver beans.");
            }
        }
    }

    private boolean isAutoConfigured(String beanName) {
        if (!(beanFactory instanceof ConfigurableListableBeanFactory configurable)
                || !configurable.containsBeanDefinition(beanName)) {
            return false;
        }
        BeanDefinition definition = configurable.getMergedBeanDefinition(beanName);
        MethodMetadata factoryMethod = (definition instanceof AnnotatedBeanDefinition annotated)
                ? annotated.getFactoryMethodMetadata() : null;
        if (factoryMethod == null) {
            return false;
        }
        String declaringClass = factoryMethod.getDeclaringClassName();
        return declaringClass.equals(LocalBackendConfiguration.class.getName())
                || declaringClass.equals(RedisBackendConfiguration.class.getName());
    }

    /** The line that is logged. */
    String describe() {
        BackendSelection selection = BackendSelection.select(environment, beanFactory, classLoader);
        String selected = selection.backend().name().toLowerCase(Locale.ROOT);
        LockRegistry registry = beanFactory.getBeanProvider(LockRegistry.class).getIfUnique();
        if (registry == null || registry.backend().equals(selected)) {
            return "Locks backend: " + selected + " (" + selection.reason() + ")";
        }
        return "Locks backend: " + registry.backend() + " (the application's own LockRegistry, "
                + ClassUtils.getUserClass(registry).getName() + ")";
    }
}
