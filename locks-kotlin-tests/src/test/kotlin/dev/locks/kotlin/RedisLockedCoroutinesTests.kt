package dev.locks.kotlin

import dev.locks.redis.test.RedisServerExtension
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/** The Redis backend, on a redis-server of this class's own, with Spring Boot's Redis auto-configuration. */
class RedisLockedCoroutinesTests : LockedCoroutinesTests() {

    override fun application(): ApplicationContextRunner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java))
        .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
            "locks.backend=redis")

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }
}
