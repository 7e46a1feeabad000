package dev.locks.docs

import dev.locks.annotation.FetchOrCompute
import dev.locks.annotation.Locked
import dev.locks.spring.reactive.ReactiveLease
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.reactor.awaitSingle
import org.springframework.stereotype.Service

// The Kotlin example of docs/reactive-and-kotlin.md, compiled here and never run (the tests of this module run
// the same shapes in dev.locks.kotlin); the sample app's DocsExamplesTests compares it with the page.

class Account(val id: Long, val cents: Long) {
    fun debit(amount: Long) = Account(id, cents - amount)
}

class Receipt(val account: Account, val fencingToken: Long)

class Line(val text: String)

class Quote(val symbol: String)

interface Ledger {
    suspend fun find(id: Long): Account
    suspend fun save(account: Account, fencingToken: Long): Receipt
    fun lines(id: Long): Flow<Line>
}

interface Quotes {
    suspend fun fetch(symbol: String): Quote
}

// tag::coroutines[]
@Service
class Accounts(private val ledger: Ledger, private val quotes: Quotes) {   // open: kotlin-spring (all-open)

    @Locked(keys = ["'account:' + #id"])
    suspend fun debit(id: Long, cents: Long): Receipt {
        val account = ledger.find(id)                   // suspends: the keys stay held
        val lease = ReactiveLease.current().awaitSingle()   // the lease, from the coroutine
        return ledger.save(account.debit(cents), lease.fencingToken())
    }

    @Locked(keys = ["'statement:' + #id"])
    fun statement(id: Long): Flow<Line> = flow { ledger.lines(id).collect { emit(it) } }

    @FetchOrCompute(name = "quotes", key = "#symbol", ttl = "30s")
    suspend fun quote(symbol: String): Quote = quotes.fetch(symbol)
}
// end::coroutines[]
