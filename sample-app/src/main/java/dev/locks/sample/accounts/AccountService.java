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
     * transfer. The fencing token is checked on the read of the read-modify-write as well as on the write:
     * reading an account first claims its row for the lease's token (refused once a newer holder has claimed
     * it), and a write goes through only while no newer holder has claimed the row since. A holder whose lock
     * expired can neither act on a balance its successor is changing nor overwrite its successor's work.
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
        BigDecimal balance = claim(from, token);
        claim(to, token);
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

    /** Claims the row for {@code token} (refused once a newer holder has claimed it), then reads its balance. */
    private BigDecimal claim(long id, long token) {
        balance(id); // an unknown account is not found, not fenced off
        if (jdbc.update("update account set fence = ? where id = ? and fence <= ?", token, id, token) == 0) {
            throw new FencedOffException(id, token);
        }
        return balance(id); // read after the claim: no older holder can write it any more
    }

    private void write(long id, BigDecimal delta, long token) {
        int updated = jdbc.update("update account set balance = balance + ? where id = ? and fence = ?",
                delta, id, token);
        if (updated == 0) {
            throw new FencedOffException(id, token);
        }
    }
}
