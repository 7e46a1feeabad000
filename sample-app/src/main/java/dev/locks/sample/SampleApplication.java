package dev.locks.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;

/**
 * The sample application: nothing to set up besides the starter on the classpath ({@code @EnableCaching} is for
 * Spring's own {@code @Cacheable} of {@code RateService}).
 */
@SpringBootApplication
@EnableCaching
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
