package dev.locks.kotlin

import dev.locks.Lease
import dev.locks.annotation.FetchOrCompute
import dev.locks.annotation.Locked
import dev.locks.spring.reactive.ReactiveLease
import java.util.Optional
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.yield

/**
 * A bean of suspend functions and Flows under the annotations, as a Kotlin service writes them (open, as the
 * kotlin-spring compiler plugin would make it). What it counts is in [Ledger], unguarded: only the locks keep it
 * exact.
 */
open class CoroutineAccounts(private val ledger: Ledger) {

    /** A read-modify-write with suspensions between the read and the write: a lost update without the lock. */
    @Locked(keys = ["'account:' + #id"])
    open suspend fun deposit(id: String, cents: Int): Int = exclusively("account:$id") {
        val before = ledger.balances.getOrDefault(id, 0)
        yield()
        delay(1)
        ledger.balances[id] = before + cents
        before + cents
    }

    /** Holds every key of [ids] (all-or-nothing) until [release] completes; [entered] completes once it holds them. */
    @Locked(keys = ["#ids"])
    open suspend fun holdAll(
        ids: List<String>,
        entered: CompletableDeferred<Lease>,
        release: CompletableDeferred<Unit>,
    ) {
        ledger.started.computeIfAbsent(ids.joinToString(","), { AtomicInteger() }).incrementAndGet()
        entered.complete(ReactiveLease.current().awaitSingle())
        release.await()
    }

    /**
     * Holds [id] until cancelled. (Declared as returning Unit: for a suspend function declared to return Nothing,
     * kotlin-reflect 2.2 cannot tell the result type, and Spring calls the function through it.)
     */
    @Locked(keys = ["#id"])
    open suspend fun holdUntilCancelled(id: String, entered: CompletableDeferred<Unit>) {
        entered.complete(Unit)
        awaitCancellation()
    }

    @Locked(keys = ["#id"])
    open suspend fun fail(id: String): String {
        delay(1)
        throw IllegalStateException("no account $id")
    }

    /** The lease of the running call, from the coroutine (the Reactor context in its coroutine context). */
    @Locked(keys = ["'lease:' + #id"])
    open suspend fun lease(id: String): Lease {
        delay(1)
        return ReactiveLease.current().awaitSingle()
    }

    @FetchOrCompute(name = "quotes", key = "#symbol", ttl = "1m")
    open suspend fun quote(symbol: String): String {
        ledger.computations.incrementAndGet()
        delay(50)
        return "quote:$symbol"
    }

    /**
     * Never returns, as a call to a server that never answers: only a cancellation ends it, which [Ledger.hungCancelled]
     * counts. Its compute timeout is short, so that the test sees it end.
     */
    @FetchOrCompute(name = "hung", key = "#symbol", ttl = "1m", computeTimeout = "1s")
    open suspend fun hungQuote(symbol: String): String {
        ledger.hungComputations.incrementAndGet()
        try {
            awaitCancellation()
        }
        finally {
            ledger.hungCancelled.incrementAndGet()
        }
    }

    /** Stale-if-error (section 11): after its short TTL a failing upstream is answered with the stale value. */
    @FetchOrCompute(name = "rates", key = "#currency", ttl = "200ms", staleIfError = "1h")
    open suspend fun rate(currency: String): String {
        delay(1)
        check(!ledger.upstreamDown) { "upstream down" }
        return "rate:$currency:" + ledger.computations.incrementAndGet()
    }

    /** An empty result stores nothing, as for a blocking method returning Optional. */
    @FetchOrCompute(name = "maybe", key = "#symbol", ttl = "1m")
    open suspend fun maybeQuote(symbol: String): Optional<String> {
        ledger.computations.incrementAndGet()
        delay(1)
        return if (symbol == "none") Optional.empty() else Optional.of("quote:$symbol")
    }

    /** Emits 1..[count] under the key of [id], suspending between the items. */
    @Locked(keys = ["'ticks:' + #id"])
    open fun ticks(id: String, count: Int): Flow<Int> = flow {
        exclusively("ticks:$id") {
            for (i in 1..count) {
                emit(i)
                delay(1)
            }
        }
    }

    /** A suspend function whose result is a Flow: held until the Flow completes. */
    @Locked(keys = ["'ticks:' + #id"])
    open suspend fun ticksLater(id: String, count: Int): Flow<Int> {
        delay(1)
        return ticks(id, count)
    }

    private inline fun <T> exclusively(key: String, body: () -> T): T {
        val now = ledger.inside.computeIfAbsent(key, { AtomicInteger() }).incrementAndGet()
        ledger.mostInside.accumulateAndGet(now, ::maxOf)
        try {
            return body()
        }
        finally {
            ledger.inside.getValue(key).decrementAndGet()
        }
    }
}

/** What [CoroutineAccounts] counts, kept apart from it so that the test reads the bean's state, not its proxy's. */
class Ledger {

    /** Balances, read and written around suspension points without any synchronisation of their own. */
    val balances = ConcurrentHashMap<String, Int>()

    /** Calls inside a locked body right now, per key, and the most there ever were. */
    val inside = ConcurrentHashMap<String, AtomicInteger>()
    val mostInside = AtomicInteger()

    /** Bodies that started, by name, to tell that a cancelled waiter never ran. */
    val started = ConcurrentHashMap<String, AtomicInteger>()

    val computations = AtomicInteger()

    /** Hung computations that started, and those of them that were cancelled. */
    val hungComputations = AtomicInteger()
    val hungCancelled = AtomicInteger()

    /** Whether [CoroutineAccounts.rate]'s upstream fails. */
    @Volatile
    var upstreamDown = false
}
