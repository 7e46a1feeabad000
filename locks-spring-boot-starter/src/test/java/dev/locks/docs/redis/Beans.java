package dev.locks.docs.redis;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.serializer.GenericJacksonJsonRedisSerializer;
import org.springframework.data.redis.serializer.RedisSerializer;
import tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator;

/** The beans of docs/backends/redis.md. */
@Configuration(proxyBeanMethods = false)
class Beans {

    // tag::json-serializer[]
    @Bean
    RedisSerializer<Object> locksRedisSerializer() {
        return GenericJacksonJsonRedisSerializer.builder()
                .enableDefaultTyping(BasicPolymorphicTypeValidator.builder()
                        .allowIfSubType("com.example.quotes.")   // your value types
                        .allowIfSubType("java.util.")
                        .build())
                .build();
    }
    // end::json-serializer[]

    // tag::compute-connection-factory[]
    @Bean(defaultCandidate = false)
    LettuceConnectionFactory locksComputeRedisConnectionFactory() {
        return new LettuceConnectionFactory(new RedisStandaloneConfiguration("cache-redis", 6379));
    }
    // end::compute-connection-factory[]
}
