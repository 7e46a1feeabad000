package dev.locks.spring.cleanup;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.scheduling.annotation.ScheduledAnnotationBeanPostProcessor;
import org.springframework.scheduling.config.TaskManagementConfigUtils;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Schedules the {@link LocksSweeper} for an application that has no scheduling of its own, and nothing
 * else: no other bean's {@code @Scheduled} methods, no {@code SchedulingConfigurer}, no application
 * {@code TaskScheduler}. It runs the sweeper on one daemon thread of its own, {@code locks-sweeper}, shut
 * down with the context.
 *
 * <p>Registered only when the application has no {@code @EnableScheduling}; should scheduling be enabled
 * by a configuration processed later all the same, this one steps aside at runtime, so that the sweeper
 * is never scheduled twice.
 */
public class LocksSweeperScheduler extends ScheduledAnnotationBeanPostProcessor {

    private final ScheduledExecutorService executor;

    private BeanFactory beanFactory;

    public LocksSweeperScheduler() {
        CustomizableThreadFactory threads = new CustomizableThreadFactory("locks-sweeper-");
        threads.setDaemon(true);
        this.executor = Executors.newSingleThreadScheduledExecutor(threads);
        setScheduler(executor);
    }

    /** Kept for the check above, and not handed on: the application's {@code SchedulingConfigurer}s stay out. */
    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** Not handed on either: tasks start once the singletons are instantiated. */
    @Override
    public void setApplicationContext(ApplicationContext applicationContext) {
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof LocksSweeper && !applicationSchedules()) {
            return super.postProcessAfterInitialization(bean, beanName);
        }
        return bean;
    }

    private boolean applicationSchedules() {
        return beanFactory != null
                && beanFactory.containsBean(TaskManagementConfigUtils.SCHEDULED_ANNOTATION_PROCESSOR_BEAN_NAME);
    }

    @Override
    public void destroy() {
        super.destroy();
        executor.shutdownNow();
    }
}
