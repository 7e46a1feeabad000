package dev.locks.kotlin

import dev.locks.annotation.FetchOrCompute
import dev.locks.annotation.Locked
import dev.locks.spring.LocksAutoConfiguration
import dev.locks.spring.interceptor.InvalidLocksAnnotationException
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.MutableStateFlow
import kotlinx.coroutines.flow.StateFlow
import kotlinx.coroutines.flow.flowOf
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import reactor.core.publisher.Mono

/** What stops startup for suspend functions and Flows, with a message that names the method. */
class CoroutineStartupTests {

    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration::class.java))
        .withPropertyValues("locks.backend=local") // locks-redis and locks-jdbc are both on this module's classpath

    @Test
    fun aBadKeyOnASuspendFunctionShouldStopStartupNamingTheMethod() {
        val failure = startupFailure(UnknownParameter::class.java)

        assertThat(failure.message).contains("@Locked").contains("UnknownParameter.find(String, Continuation)")
            .contains("#nope").contains("id")
    }

    @Test
    fun aSyntaxErrorInTheKeyOfASuspendFunctionShouldStopStartupNamingTheMethod() {
        val failure = startupFailure(BrokenExpression::class.java)

        assertThat(failure.message).contains("@FetchOrCompute").contains("BrokenExpression.find(String, Continuation)")
            .contains("#id +")
    }

    @Test
    fun fetchOrComputeOnAFlowShouldStopStartupNamingTheMethod() {
        val failure = startupFailure(ComputedFlow::class.java)

        assertThat(failure.message).contains("@FetchOrCompute").contains("ComputedFlow.find(String)")
            .contains("kotlinx.coroutines.flow.Flow").contains("stream")
    }

    @Test
    fun fetchOrComputeOnASuspendFunctionReturningAFlowShouldStopStartup() {
        val failure = startupFailure(ComputedSuspendingFlow::class.java)

        assertThat(failure.message).contains("@FetchOrCompute")
            .contains("ComputedSuspendingFlow.find(String, Continuation)").contains("kotlinx.coroutines.flow.Flow")
    }

    @Test
    fun fetchOrComputeOnASuspendFunctionReturningNothingShouldStopStartup() {
        val failure = startupFailure(ComputedNothing::class.java)

        assertThat(failure.message).contains("@FetchOrCompute").contains("ComputedNothing.find(String, Continuation)")
            .contains("returns nothing")
    }

    @Test
    fun fetchOrComputeOnASuspendFunctionReturningAMonoShouldStopStartup() {
        val failure = startupFailure(ComputedSuspendingMono::class.java)

        assertThat(failure.message).contains("@FetchOrCompute")
            .contains("ComputedSuspendingMono.find(String, Continuation)").contains("reactor.core.publisher.Mono")
    }

    @Test
    fun lockedOnAStateFlowShouldStopStartup() {
        val failure = startupFailure(LockedStateFlow::class.java)

        assertThat(failure.message).contains("@Locked").contains("LockedStateFlow.state()")
            .contains("kotlinx.coroutines.flow.StateFlow")
    }

    private fun startupFailure(beanClass: Class<*>): InvalidLocksAnnotationException {
        var failure: Throwable? = null
        runner.withBean(beanClass).run { context -> failure = context.startupFailure }
        var cause = failure
        while (cause != null && cause !is InvalidLocksAnnotationException) {
            cause = cause.cause
        }
        assertThat(cause).`as`("the startup failure's cause, in %s", failure).isNotNull()
        return cause as InvalidLocksAnnotationException
    }

    open class UnknownParameter {
        @Locked(keys = ["#nope"])
        open suspend fun find(id: String): String = id
    }

    open class BrokenExpression {
        @FetchOrCompute(key = "#id +")
        open suspend fun find(id: String): String = id
    }

    open class ComputedFlow {
        @FetchOrCompute(key = "#id")
        open fun find(id: String): Flow<String> = flowOf(id)
    }

    open class ComputedSuspendingFlow {
        @FetchOrCompute(key = "#id")
        open suspend fun find(id: String): Flow<String> = flowOf(id)
    }

    open class ComputedSuspendingMono {
        @FetchOrCompute(key = "#id")
        open suspend fun find(id: String): Mono<String> = Mono.just(id)
    }

    open class LockedStateFlow {
        @Locked
        open fun state(): StateFlow<Int> = MutableStateFlow(1)
    }

    open class ComputedNothing {
        @FetchOrCompute(key = "#id")
        open suspend fun find(id: String) {
        }
    }
}
