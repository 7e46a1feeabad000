package dev.locks.sample.accounts;

import dev.locks.Lease;
import dev.locks.annotation.Locked;
import java.math.BigDecimal;
import java.util.List;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Accounts and transfers between them. */
@Service
public class AccountService {

    private final JdbcTemplate jdbc;

    AccountService(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public List<Account> accounts() {
        return jdbc.query("select id, owner, balance from account order by id",
                (rs, row) -> new Account(rs.getLong("id"), rs.getString("owner"), rs.getBigDecimal("balance")));
    }

    /**
     * Moves {@code amount} from one account to the other. Both accounts are locked (all-or-nothing, in one
     * global order, so a transfer from 1 to 2 and one from 2 to 1 never deadlock) before the transaction
     * begins and released after it commits: the balance check and the two updates see no concurrent
     * transfer. Each write carries the lease's fencing token, and the database refuses a write with a lower
     * token than the last one: a holder whose lock expired cannot overwrite its successor's work.
     */
    @Locked(keys = { "'account:' + #from", "'account:' + #to" })
    @Transactional
    public Transfer transfer(long from, long to, BigDecimal amount) {
        if (from == to) {
            throw new IllegalArgumentException("from and to must be different accounts");
        }
        if (amount == null || amount.signum() <= 0) {
            throw new IllegalArgumentException("amount must be positive, was " + amount);
        }
        long token = Lease.current().orElseThrow().fencingToken();
        BigDecimal balance = balance(from);
        balance(to);
        if (balance.compareTo(amount) < 0) {
            throw new InsufficientFundsException(from, balance, amount);
        }
        write(from, amount.negate(), token);
        write(to, amount, token);
        jdbc.update("insert into transfer (from_id, to_id, amount, fencing_token) values (?, ?, ?, ?)", from, to,
                amount, token);
        return new Transfer(from, to, amount, token);
    }

    private BigDecimal balance(long id) {
        try {
            return jdbc.queryForObject("select balance from account where id = ?", BigDecimal.class, id);
        }
        catch (EmptyResultDataAccessException ex) {
            throw new AccountNotFoundException(id);
        }
    }

    private void write(long id, BigDecimal delta, long token) {
        int updated = jdbc.update("update account set balance = balance + ?, fence = ? where id = ? and fence <= ?",
                delta, token, id, token);
        if (updated == 0) {
            throw new FencedOffException(id, token);
        }
    }
}
