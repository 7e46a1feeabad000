package dev.locks.sample;

import io.lettuce.core.ClientOptions.DisconnectedBehavior;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * Lettuce settings for locks, in the {@code redis} profile, beside the short timeouts of
 * {@code application-redis.properties} (see the {@code dev.locks.redis} package documentation): while Redis
 * is unreachable, commands fail at once instead of queueing until their timeout, and the client reconnects
 * within two seconds of Redis coming back instead of up to thirty.
 */
@Configuration(proxyBeanMethods = false)
@Profile("redis")
class RedisClientSettings {

    @Bean
    LettuceClientOptionsBuilderCustomizer rejectCommandsWhileDisconnected() {
        return options -> options.disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS);
    }

    @Bean
    ClientResourcesBuilderCustomizer shortReconnectDelay() {
        return resources -> resources.reconnectDelay(
                Delay.exponential(Duration.ofMillis(100), Duration.ofSeconds(2), 2, TimeUnit.MILLISECONDS));
    }
}
