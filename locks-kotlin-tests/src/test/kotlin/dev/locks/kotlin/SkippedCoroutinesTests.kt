package dev.locks.kotlin

import ch.qos.logback.classic.Level
import ch.qos.logback.classic.Logger
import ch.qos.logback.classic.spi.ILoggingEvent
import ch.qos.logback.core.AppenderBase
import dev.locks.LockRegistry
import dev.locks.LockUnavailableException
import dev.locks.annotation.Locked
import dev.locks.redis.test.RedisServerExtension
import dev.locks.spring.LocksAutoConfiguration
import dev.locks.spring.actuate.LocksMetricsAutoConfiguration
import io.lettuce.core.ClientOptions.DisconnectedBehavior
import io.micrometer.core.instrument.MeterRegistry
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger
import java.util.logging.Handler
import java.util.logging.LogRecord
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.slf4j.LoggerFactory
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/**
 * `@Locked(onTimeout = "skip")` on Kotlin suspend functions and a Flow: while another holder has the key, a call
 * returns `null` (`Unit`), a Flow is empty, the body does not run, the meter counts `result=skipped`, and nothing is
 * logged at WARN or ERROR. Locally ([LocalSkippedCoroutinesTests]) the key is held by a lease of the same node; on
 * Redis ([RedisSkippedCoroutinesTests]) by another node.
 */
abstract class SkippedCoroutinesTests {

    protected val jobs = JobLedger()

    /** A node of the application under test. */
    protected abstract fun node(): ApplicationContextRunner

    /** Runs [test] with the node that calls the jobs and the registry that holds the key against it. */
    protected abstract fun withNodes(test: (caller: AssertableApplicationContext, holder: LockRegistry) -> Unit)

    protected fun application(): ApplicationContextRunner = node()
        .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration::class.java, MetricsAutoConfiguration::class.java,
            SimpleMetricsExportAutoConfiguration::class.java, LocksMetricsAutoConfiguration::class.java))
        .withBean(JobLedger::class.java, { jobs })
        .withBean(CoroutineJobs::class.java)

    @Test
    fun busyKeyShouldSkipSuspendFunctionsAndFlowsQuietly() = withNodes { caller, holder ->
        val service = caller.getBean(CoroutineJobs::class.java)
        val lease = holder.acquire(listOf("job"))
        lease.detach()
        Logs().use { logs ->
            runBlocking {
                withTimeout(Duration.ofSeconds(30).toMillis()) {
                    assertThat(service.report()).isNull()
                    assertThat(service.tick()).isEqualTo(Unit)
                    assertThat(service.stream().toList()).isEmpty()
                }
            }
            assertThat(jobs.bodies.get()).isZero()
            assertThat(logs.warnings).isEmpty()
            assertThat(logs.debug.filter { it.contains("Skipped CoroutineJobs.") }).hasSize(3)
        }
        val meters = caller.getBean(MeterRegistry::class.java)
        for (method in listOf("report", "tick", "stream")) {
            assertThat(meters.get("locks.acquire").tags("name", "CoroutineJobs.$method", "result", "skipped").timer()
                .count()).`as`(method).isOne()
            assertThat(meters.get("locks.acquire").tags("name", "CoroutineJobs.$method", "result", "timeout").timer()
                .count()).`as`(method).isZero()
        }

        lease.close()
        runBlocking {
            assertThat(service.report()).isEqualTo("ran")
            service.tick()
            assertThat(service.stream().toList()).containsExactly("ran")
        }
        assertThat(jobs.bodies.get()).isEqualTo(3)
    }

    /** The library's System.Logger records (JUL) and Commons Logging's (Logback) while open. */
    private class Logs : AutoCloseable {
        val warnings = CopyOnWriteArrayList<String>()
        val debug = CopyOnWriteArrayList<String>()
        private val julRoot = java.util.logging.Logger.getLogger("")
        private val handler = object : Handler() {
            override fun publish(record: LogRecord) {
                if (record.level.intValue() >= java.util.logging.Level.WARNING.intValue()) {
                    warnings.add("${record.level} ${record.loggerName}: ${record.message}")
                }
            }

            override fun flush() {}
            override fun close() {}
        }
        private val root = LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) as Logger
        private val interceptor = LoggerFactory.getLogger("dev.locks.spring.interceptor.LockedInterceptor") as Logger
        private val level: Level? = interceptor.level
        private val appender = object : AppenderBase<ILoggingEvent>() {
            override fun append(event: ILoggingEvent) {
                val line = "${event.level} ${event.loggerName}: ${event.formattedMessage}"
                if (event.level.isGreaterOrEqual(Level.WARN)) warnings.add(line)
                else if (event.level == Level.DEBUG) debug.add(line)
            }
        }

        init {
            julRoot.addHandler(handler)
            appender.context = root.loggerContext
            appender.start()
            root.addAppender(appender)
            interceptor.level = Level.DEBUG
        }

        override fun close() {
            julRoot.removeHandler(handler)
            root.detachAppender(appender)
            appender.stop()
            interceptor.level = level
        }
    }
}

class LocalSkippedCoroutinesTests : SkippedCoroutinesTests() {

    override fun node(): ApplicationContextRunner = ApplicationContextRunner()
        .withPropertyValues("locks.backend=local") // locks-redis and locks-jdbc are both on this module's classpath

    override fun withNodes(test: (AssertableApplicationContext, LockRegistry) -> Unit) {
        application().run { context -> test(context, context.getBean(LockRegistry::class.java)) }
    }
}

class RedisSkippedCoroutinesTests : SkippedCoroutinesTests() {

    override fun node(): ApplicationContextRunner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration::class.java))
        .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
            "spring.data.redis.timeout=500ms", "locks.backend=redis", "locks.redis.timeout=500ms")
        .withBean(LettuceClientOptionsBuilderCustomizer::class.java,
            { LettuceClientOptionsBuilderCustomizer { it.disconnectedBehavior(DisconnectedBehavior.REJECT_COMMANDS) } })

    override fun withNodes(test: (AssertableApplicationContext, LockRegistry) -> Unit) {
        application().run { first -> application().run { second -> test(second, first.getBean(LockRegistry::class.java)) } }
    }

    @Test
    fun outageShouldThrowFromASuspendFunctionEvenWhenATimeoutWouldSkip() {
        application().run { context ->
            val service = context.getBean(CoroutineJobs::class.java)
            redis.server().stop()

            assertThatExceptionOfType(LockUnavailableException::class.java)
                .isThrownBy { runBlocking { service.report() } }
            assertThatExceptionOfType(LockUnavailableException::class.java).isThrownBy { runBlocking { service.tick() } }
            assertThat(jobs.bodies.get()).isZero()
        }
    }

    companion object {
        @JvmField
        @RegisterExtension
        val redis = RedisServerExtension()
    }
}

/** What the jobs did, shared with the test (a proxied bean's own fields are not the proxy's). */
class JobLedger {
    val bodies = AtomicInteger()
}

/** Scheduled-job style methods that skip when another holder has their key. */
open class CoroutineJobs(private val ledger: JobLedger) {

    @Locked(keys = ["'job'"], waitTime = "0", onTimeout = "skip")
    open suspend fun report(): String? {
        delay(1)
        ledger.bodies.incrementAndGet()
        return "ran"
    }

    @Locked(keys = ["'job'"], waitTime = "0", onTimeout = "skip")
    open suspend fun tick() {
        delay(1)
        ledger.bodies.incrementAndGet()
    }

    @Locked(keys = ["'job'"], waitTime = "0", onTimeout = "skip")
    open fun stream(): Flow<String> = flow {
        ledger.bodies.incrementAndGet()
        emit("ran")
    }
}
