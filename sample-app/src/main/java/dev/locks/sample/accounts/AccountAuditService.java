package dev.locks.sample.accounts;

import dev.locks.annotation.Locked;
import dev.locks.spring.reactive.ReactiveLease;
import java.math.BigDecimal;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A reactive audit of one account: {@code @Locked} on a method returning {@code Mono}. The account's lock is
 * taken when the {@code Mono} is subscribed to (Spring MVC subscribes to a controller's {@code Mono}, as WebFlux
 * does) and released when it completes: no transfer of the account runs between the reads of its balance and
 * of its transfers, so the two agree.
 */
@Service
public class AccountAuditService {

    private final JdbcTemplate jdbc;

    AccountAuditService(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** The account's balance and transfers, read under its lock; the lease from the Reactor context. */
    @Locked(keys = "'account:' + #id")
    public Mono<Audit> audit(long id) {
        Mono<Audit> reads = Mono.fromCallable(() -> new Audit(id, balance(id), count("from_id", id),
                count("to_id", id), 0)).subscribeOn(Schedulers.boundedElastic()); // JDBC blocks: not on an event loop
        return reads.zipWith(ReactiveLease.current(), (audit, lease) -> audit.under(lease.fencingToken()));
    }

    private BigDecimal balance(long id) {
        try {
            return jdbc.queryForObject("select balance from account where id = ?", BigDecimal.class, id);
        }
        catch (EmptyResultDataAccessException ex) {
            throw new AccountNotFoundException(id);
        }
    }

    private long count(String column, long id) {
        return jdbc.queryForObject("select count(*) from transfer where " + column + " = ?", Long.class, id);
    }

    /** An account's balance and how many transfers it sent and received, read under one lease. */
    public record Audit(long id, BigDecimal balance, long transfersOut, long transfersIn, long fencingToken) {

        Audit under(long token) {
            return new Audit(id, balance, transfersOut, transfersIn, token);
        }
    }
}
