package dev.locks.sample.jobs;

import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** Spring's {@code @Scheduled} methods, for the jobs (the starter's own sweeper needs none of it). */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
class SchedulingConfiguration {
}
