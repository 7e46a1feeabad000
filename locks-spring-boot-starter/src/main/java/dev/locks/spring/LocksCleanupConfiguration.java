package dev.locks.spring;

import dev.locks.LockRegistry;
import dev.locks.spring.cleanup.LocksSweeper;
import dev.locks.spring.cleanup.LocksSweeperScheduler;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.scheduling.config.TaskManagementConfigUtils;

/**
 * The sweeper of stale locks, every {@code locks.cleanup.interval}; {@code locks.cleanup.enabled=false}
 * removes it. An application with {@code @EnableScheduling} schedules it like its own {@code @Scheduled}
 * methods; for one without, {@link LocksSweeperScheduler} schedules the sweeper alone, on a thread of its
 * own.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "locks.cleanup.enabled", matchIfMissing = true)
class LocksCleanupConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LocksSweeper locksSweeper(LockRegistry registry, LocksProperties properties) {
        // The properties are asked for so that they are bound and checked first: a bad locks.cleanup.interval is
        // then reported by its name, not by the @Scheduled processing of the sweeper.
        return new LocksSweeper(registry);
    }

    /** Keeps the sweeper eager under {@code spring.main.lazy-initialization=true}: a lazy one would never run. */
    @Bean
    @ConditionalOnMissingBean(name = "locksSweeperLazyInitializationExcludeFilter")
    static LazyInitializationExcludeFilter locksSweeperLazyInitializationExcludeFilter() {
        return LazyInitializationExcludeFilter.forBeanTypes(LocksSweeper.class);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean(value = LocksSweeperScheduler.class,
            name = TaskManagementConfigUtils.SCHEDULED_ANNOTATION_PROCESSOR_BEAN_NAME)
    static LocksSweeperScheduler locksSweeperScheduler() {
        return new LocksSweeperScheduler();
    }
}
