package dev.locks.sample.jobs;

import dev.locks.Lease;
import dev.locks.sample.accounts.Account;
import dev.locks.sample.accounts.AccountService;
import java.math.BigDecimal;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Adds up every balance on a schedule, on one instance at a time however many run: the others skip the tick. The key
 * {@code job:balance-report} stays locked for {@code sample.report.hold-at-least} after a run, so that an instance
 * whose clock is a little behind does not run it again, and {@code GET /actuator/locks} on any instance shows which
 * one ran it last (the owner names the host and {@code spring.application.name}).
 */
@Component
public class BalanceReportJob {

    private static final Log logger = LogFactory.getLog(BalanceReportJob.class);

    private final AccountService accounts;

    private final AtomicInteger runs = new AtomicInteger();

    public BalanceReportJob(AccountService accounts) {
        this.accounts = accounts;
    }

    @Scheduled(fixedRateString = "${sample.report.interval:30s}")
    @SingleNode(value = "'job:balance-report'", lockTimeout = "1m", holdAtLeast = "${sample.report.hold-at-least:10s}")
    public void report() {
        BigDecimal total = accounts.accounts().stream().map(Account::balance).reduce(BigDecimal.ZERO, BigDecimal::add);
        runs.incrementAndGet();
        logger.info("Balance report: " + total + " in all accounts (fencing token "
                + Lease.current().orElseThrow().fencingToken() + ")");
    }

    /** How many times this instance ran the report. */
    public int runs() {
        return runs.get();
    }
}
