package dev.locks.docs.start;

import dev.locks.Lease;
import dev.locks.annotation.Locked;
import java.math.BigDecimal;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

// tag::quick-start[]
@Service
class AccountService {

    private final Accounts accounts;

    AccountService(Accounts accounts) {
        this.accounts = accounts;
    }

    // tag::transfer[]
    @Locked(keys = {"'account:' + #from", "'account:' + #to"})
    @Transactional
    public void transfer(long from, long to, BigDecimal amount) {
        long token = Lease.current().orElseThrow().fencingToken();   // for storage that fences writes
        accounts.move(from, to, amount, token);
    }
    // end::transfer[]
}
// end::quick-start[]
