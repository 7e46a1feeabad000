package dev.locks.docs.reactive;

import dev.locks.annotation.FetchOrCompute;
import dev.locks.annotation.Locked;
import dev.locks.spring.reactive.ReactiveLease;
import java.math.BigDecimal;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/** The Reactor examples of docs/reactive-and-kotlin.md. */
class Examples {

    record Account(long id, long cents) {

        Account debit(long amount) {
            return new Account(id, cents - amount);
        }
    }

    record Receipt(long account, long cents, long fencingToken) {
    }

    record Quote(String symbol, BigDecimal price) {
    }

    interface ReactiveAccounts {

        Mono<Account> findById(long id);

        Mono<Account> save(Account account);
    }

    private final ReactiveAccounts accounts;
    private final WebClient webClient;

    Examples(ReactiveAccounts accounts, WebClient webClient) {
        this.accounts = accounts;
        this.webClient = webClient;
    }

    // tag::locked-mono[]
    @Locked(keys = "'account:' + #id")
    public Mono<Receipt> debit(long id, long cents) {
        return accounts.findById(id)                        // runs under the lock
                .flatMap(account -> accounts.save(account.debit(cents)))
                .zipWith(ReactiveLease.current(), (saved, lease) -> receipt(saved, lease.fencingToken()));
    }
    // end::locked-mono[]

    // tag::compute-mono[]
    @FetchOrCompute(key = "'quote:' + #symbol", ttl = "30s")
    public Mono<Quote> quote(String symbol) {
        return webClient.get().uri("/quotes/{s}", symbol).retrieve().bodyToMono(Quote.class);
    }
    // end::compute-mono[]

    private static Receipt receipt(Account saved, long fencingToken) {
        return new Receipt(saved.id(), saved.cents(), fencingToken);
    }
}
