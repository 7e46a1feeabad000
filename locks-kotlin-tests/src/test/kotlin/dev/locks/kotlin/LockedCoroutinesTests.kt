package dev.locks.kotlin

import dev.locks.ComputeTimeoutException
import dev.locks.Lease
import dev.locks.LockRegistry
import dev.locks.spring.LocksAutoConfiguration
import java.time.Duration
import java.util.concurrent.Executors
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.reactor.asCoroutineDispatcher as asReactorDispatcher
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.assertj.AssertableApplicationContext
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import reactor.core.scheduler.Schedulers

/**
 * `@Locked` and `@FetchOrCompute` on Kotlin suspend functions and `@Locked` on Flow, through the starter's proxies
 * as an application calls them: the lock is held across the body's suspension points until it returns (a Flow's
 * until its collection ends), a waiting coroutine suspends and a cancelled one leaves nothing locked. Each backend
 * runs the same tests ([LocalLockedCoroutinesTests], [RedisLockedCoroutinesTests], [JdbcLockedCoroutinesTests]).
 */
abstract class LockedCoroutinesTests {

    private val ledger = Ledger()

    /** The application's auto-configurations and properties for the backend under test. */
    protected abstract fun application(): ApplicationContextRunner

    private fun run(test: suspend CoroutineScope.(CoroutineAccounts, LockRegistry) -> Unit) {
        application()
            .withConfiguration(AutoConfigurations.of(LocksAutoConfiguration::class.java))
            .withPropertyValues("locks.retries=infinity", "locks.wait-time=60s")
            .withBean(Ledger::class.java, { ledger })
            .withBean(CoroutineAccounts::class.java)
            .run { context: AssertableApplicationContext ->
                assertThat(context).hasNotFailed()
                val accounts = context.getBean(CoroutineAccounts::class.java)
                val locks = context.getBean(LockRegistry::class.java)
                runBlocking { withTimeout(Duration.ofSeconds(90).toMillis()) { test(accounts, locks) } }
            }
    }

    @Test
    fun suspendFunctionsOnOneKeyShouldRunOneAtATimeAcrossTheirSuspensionPoints() = run { accounts, _ ->
        val deposits = (1..CALLS).map { async(NON_BLOCKING) { accounts.deposit("a", 1) } }.awaitAll()

        assertThat(ledger.balances["a"]).isEqualTo(CALLS)
        assertThat(deposits).containsExactlyInAnyOrderElementsOf(1..CALLS)
        assertThat(ledger.mostInside.get()).isEqualTo(1)
    }

    @Test
    fun waitingCoroutinesShouldHoldNoThreadOfTheirDispatcher() = run { accounts, _ ->
        Executors.newSingleThreadExecutor().asCoroutineDispatcher().use { oneThread ->
            withContext(oneThread) {
                val holds = CompletableDeferred<Lease>()
                val release = CompletableDeferred<Unit>()
                val holder = launch { accounts.holdAll(listOf("account:k"), holds, release) }
                holds.await()
                val waiters = (1..COLLECTORS).map { async { accounts.deposit("k", 1) } }
                delay(WAITER_SETTLES)

                // this coroutine still runs on the dispatcher's one thread, beside every waiter and the holder
                release.complete(Unit)
                assertThat(waiters.awaitAll()).containsExactlyInAnyOrderElementsOf(1..COLLECTORS)
                holder.join()
            }
        }
        assertThat(ledger.balances["k"]).isEqualTo(COLLECTORS)
    }

    @Test
    fun severalKeysShouldBeTakenAllOrNothing() = run { accounts, locks ->
        val holdsB = CompletableDeferred<Lease>()
        val releaseB = CompletableDeferred<Unit>()
        val holder = launch(NON_BLOCKING) { accounts.holdAll(listOf("b"), holdsB, releaseB) }
        holdsB.await()
        val holdsBoth = CompletableDeferred<Lease>()
        val releaseBoth = CompletableDeferred<Unit>()
        val both = launch(NON_BLOCKING) { accounts.holdAll(listOf("a", "b"), holdsBoth, releaseBoth) }

        delay(WAITER_SETTLES)
        assertThat(holdsBoth.isCompleted).isFalse()
        assertThat(locks.heldLocks().map { it.key() }).`as`("held while the acquire of a and b waits for b")
            .containsExactly("b")

        releaseB.complete(Unit)
        val lease = holdsBoth.await()
        assertThat(lease.keys()).containsExactly("a", "b")
        assertThat(locks.heldLocks().map { it.key() }).contains("a", "b")
        releaseBoth.complete(Unit)
        holder.join()
        both.join()
        awaitFree(locks, "a", "b")
    }

    @Test
    fun cancellingAWaitingCoroutineShouldLeaveNothingLocked() = run { accounts, locks ->
        val holds = CompletableDeferred<Lease>()
        val release = CompletableDeferred<Unit>()
        val holder = launch(NON_BLOCKING) { accounts.holdAll(listOf("c"), holds, release) }
        holds.await()
        val waiter = launch(NON_BLOCKING) {
            accounts.holdAll(listOf("c", "d"), CompletableDeferred(), CompletableDeferred())
        }
        delay(WAITER_SETTLES)

        waiter.cancelAndJoin()
        release.complete(Unit)
        holder.join()

        awaitFree(locks, "c", "d")
        assertThat(ledger.started["c,d"]).`as`("the cancelled waiter's body").isNull()
    }

    @Test
    fun cancellingACoroutineThatHoldsTheKeyShouldReleaseIt() = run { accounts, locks ->
        val entered = CompletableDeferred<Unit>()
        val holder = launch(NON_BLOCKING) { accounts.holdUntilCancelled("e", entered) }
        entered.await()
        assertThat(isFree(locks, "e")).isFalse()

        holder.cancelAndJoin()

        awaitFree(locks, "e")
    }

    @Test
    fun theBodysExceptionShouldReachTheCallerAndReleaseTheKey() = run { accounts, locks ->
        val failure = runCatching { accounts.fail("f") }.exceptionOrNull()

        assertThatExceptionOfType(IllegalStateException::class.java).isThrownBy { throw failure!! }
            .withMessage("no account f")
        awaitFree(locks, "f")
    }

    @Test
    fun theLeaseShouldBeReachableFromTheCoroutine() = run { accounts, locks ->
        val lease = accounts.lease("g")

        assertThat(lease.keys()).containsExactly("lease:g")
        assertThat(lease.fencingToken()).isPositive()
        awaitFree(locks, "lease:g")
    }

    @Test
    fun aStampedeOfSuspendedCallersShouldComputeOnce() = run { accounts, _ ->
        val quotes = (1..CALLS).map { async(NON_BLOCKING) { accounts.quote("XYZ") } }.awaitAll()

        assertThat(quotes).hasSize(CALLS).containsOnly("quote:XYZ")
        assertThat(ledger.computations.get()).isEqualTo(1)
        assertThat(accounts.quote("XYZ")).isEqualTo("quote:XYZ")
        assertThat(ledger.computations.get()).isEqualTo(1)
    }

    @Test
    fun hungComputationsShouldEndAtTheirComputeTimeoutAndHoldUpNothing() = run { accounts, _ ->
        assertThat(accounts.quote("CACHED")).isEqualTo("quote:CACHED")
        val hung = (1..HUNG).map { i -> async(NON_BLOCKING) { runCatching { accounts.hungQuote("h$i") } } }
        await().atMost(Duration.ofSeconds(30)).until { ledger.hungComputations.get() >= HUNG - 5 }

        // more computations hang than the starter's wait scheduler has threads: hits and new computations still answer
        withTimeout(PROMPTLY) {
            assertThat(accounts.quote("CACHED")).isEqualTo("quote:CACHED")
            assertThat(accounts.quote("NEW")).isEqualTo("quote:NEW")
        }

        assertThat(hung.awaitAll()).allSatisfy {
            assertThat(it.exceptionOrNull()).isInstanceOf(ComputeTimeoutException::class.java)
        }
        assertThat(ledger.hungComputations.get()).isEqualTo(HUNG)
        await().atMost(Duration.ofSeconds(30)).until { ledger.hungCancelled.get() == HUNG }
        val burst = (1..2 * Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE)
            .map { i -> async(NON_BLOCKING) { accounts.quote("B$i") } }.awaitAll()
        assertThat(burst).doesNotHaveDuplicates().hasSize(2 * Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE)
    }

    @Test
    fun anOptionalResultShouldStoreItsContentAndAnEmptyOneNothing() = run { accounts, _ ->
        assertThat(accounts.maybeQuote("none")).isEmpty()
        assertThat(accounts.maybeQuote("none")).isEmpty()
        assertThat(ledger.computations.get()).isEqualTo(2)

        assertThat(accounts.maybeQuote("XYZ")).contains("quote:XYZ")
        assertThat(accounts.maybeQuote("XYZ")).contains("quote:XYZ")
        assertThat(ledger.computations.get()).isEqualTo(3)
    }

    @Test
    fun aSuspendFunctionWithStaleIfErrorShouldAnswerAFailureWithTheStaleValue() = run { accounts, _ ->
        assertThat(accounts.rate("EUR")).isEqualTo("rate:EUR:1")
        delay(400) // past the TTL of 200 ms
        ledger.upstreamDown = true

        assertThat(accounts.rate("EUR")).`as`("the stale value, not the failure").isEqualTo("rate:EUR:1")
        ledger.upstreamDown = false
        delay(1_200) // past the error back-off of 1 s
        assertThat(accounts.rate("EUR")).isEqualTo("rate:EUR:2")
    }

    @Test
    fun aFlowShouldHoldItsKeyFromCollectionToCompletion() = run { accounts, locks ->
        val flow = accounts.ticks("h", 5)
        assertThat(isFree(locks, "ticks:h")).`as`("before collection").isTrue()

        val collected = (1..COLLECTORS).map { async(NON_BLOCKING) { flow.toList() } }.awaitAll()

        assertThat(collected).allSatisfy { assertThat(it).containsExactly(1, 2, 3, 4, 5) }
        assertThat(ledger.mostInside.get()).isEqualTo(1)
        awaitFree(locks, "ticks:h")
    }

    @Test
    fun aFlowWhoseCollectorCancelsShouldReleaseItsKey() = run { accounts, locks ->
        assertThat(accounts.ticks("i", 1_000).take(2).toList()).containsExactly(1, 2)

        awaitFree(locks, "ticks:i")
        val started = CompletableDeferred<Unit>()
        val collector = launch(NON_BLOCKING) {
            accounts.ticks("i", Int.MAX_VALUE).collect { started.complete(Unit) }
        }
        started.await()
        assertThat(isFree(locks, "ticks:i")).isFalse()
        collector.cancelAndJoin()
        awaitFree(locks, "ticks:i")
    }

    @Test
    fun aSuspendFunctionReturningAFlowShouldHoldItsKeyUntilTheFlowCompletes() = run { accounts, locks ->
        val collected = (1..COLLECTORS).map { async(NON_BLOCKING) { accounts.ticksLater("j", 3).toList() } }
            .awaitAll()

        assertThat(collected).allSatisfy { assertThat(it).containsExactly(1, 2, 3) }
        assertThat(ledger.mostInside.get()).isEqualTo(1)
        awaitFree(locks, "ticks:j")
    }

    private fun isFree(locks: LockRegistry, key: String): Boolean =
        locks.tryAcquire(listOf(key)).map { it.close() }.isPresent

    private fun awaitFree(locks: LockRegistry, vararg keys: String) {
        await().atMost(Duration.ofSeconds(20)).until { keys.all { isFree(locks, it) } }
    }

    companion object {
        /**
         * Where the callers' coroutines run: Reactor's parallel threads, which BlockHound (installed for every test
         * of this module) watches, so that any blocking call on a caller's thread, a wait for the keys included,
         * fails the test.
         */
        val NON_BLOCKING = Schedulers.parallel().asReactorDispatcher()

        /** More hung computations than the starter's wait scheduler has threads (20 on 2 cores). */
        val HUNG = Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE + 5

        /** How long a call may take on a loaded machine and still count as answered at once. */
        const val PROMPTLY = 5_000L

        const val CALLS = 200
        const val COLLECTORS = 20

        /** Long enough for a waiter to reach its wait; what is checked after it holds whether or not it has. */
        const val WAITER_SETTLES = 300L
    }
}

/** The local backend. */
class LocalLockedCoroutinesTests : LockedCoroutinesTests() {
    override fun application(): ApplicationContextRunner = ApplicationContextRunner()
        .withPropertyValues("locks.backend=local") // locks-redis and locks-jdbc are both on this module's classpath
}
