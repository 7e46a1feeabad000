package dev.locks.sample.accounts;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** {@code /accounts} and {@code /transfers}. */
@RestController
class AccountController implements DisposableBean {

    private static final int MAX_HOLD_SECONDS = 120;

    private final AccountService accounts;

    private final AccountLockDemo lockDemo;

    private final AccountAuditService audits;

    private final ExecutorService holders = Executors.newCachedThreadPool(new CustomizableThreadFactory("lock-holder-"));

    AccountController(AccountService accounts, AccountLockDemo lockDemo, AccountAuditService audits) {
        this.accounts = accounts;
        this.lockDemo = lockDemo;
        this.audits = audits;
    }

    /** Every account, and the total, which transfers never change. */
    @GetMapping("/accounts")
    Accounts accounts() {
        List<Account> all = accounts.accounts();
        return new Accounts(all, all.stream().map(Account::balance).reduce(BigDecimal.ZERO, BigDecimal::add));
    }

    /** The account's balance and transfer counts, read under its lock by a reactive {@code @Locked} method. */
    @GetMapping("/accounts/{id}/audit")
    Mono<AccountAuditService.Audit> audit(@PathVariable long id) {
        return audits.audit(id);
    }

    @PostMapping("/transfers")
    Transfer transfer(@RequestBody TransferRequest request) {
        return accounts.transfer(request.from(), request.to(), request.amount());
    }

    /**
     * Holds {@code account:<id>} for {@code seconds} in the background and answers at once with the lease's
     * fencing token; meanwhile the lock shows in {@code /actuator/locks}, and transfers of that account wait.
     */
    @PostMapping("/accounts/{id}/hold")
    Hold hold(@PathVariable long id, @RequestParam(defaultValue = "30") int seconds) {
        if (seconds < 1 || seconds > MAX_HOLD_SECONDS) {
            throw new IllegalArgumentException("seconds must be in 1.." + MAX_HOLD_SECONDS + ", was " + seconds);
        }
        Duration duration = Duration.ofSeconds(seconds);
        CompletableFuture<Long> token = new CompletableFuture<>();
        CompletableFuture.runAsync(() -> lockDemo.hold(id, duration, token), holders)
                .whenComplete((done, failure) -> token.completeExceptionally(
                        (failure != null) ? failure : new IllegalStateException("lock released")));
        try {
            return new Hold("account:" + id, token.orTimeout(10, TimeUnit.SECONDS).join(), duration);
        }
        catch (CompletionException ex) {
            throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
        }
    }

    @Override
    public void destroy() {
        holders.shutdownNow();
    }

    /** Every account, and their total. */
    record Accounts(List<Account> accounts, BigDecimal total) {
    }

    /** A lock being held: its key, its lease's fencing token, and for how long. */
    record Hold(String key, long fencingToken, Duration heldFor) {
    }

    /** The body of {@code POST /transfers}. */
    record TransferRequest(long from, long to, BigDecimal amount) {
    }
}
