package dev.locks.docs.locks;

import dev.locks.annotation.Locked;
import org.springframework.scheduling.annotation.Scheduled;

/** @Locked on scheduled jobs and on a per-tenant limit. */
class Jobs {

    record Report(String tenantId) {
    }

    // tag::permits[]
    @Locked(keys = "'tenant:' + #tenantId", permits = "5", waitTime = "2s", lockTimeout = "1m")
    public Report export(String tenantId) {
        return new Report(tenantId);
    }
    // end::permits[]

    // tag::scheduled[]
    @Scheduled(cron = "0 */15 * * * *")
    @Locked(keys = "'report'", waitTime = "0", onTimeout = "skip", lockTimeout = "10m", holdAtLeast = "1m")
    public void publishReport() {
        // runs on one node per tick
    }
    // end::scheduled[]

    // tag::single-node-use[]
    @Scheduled(fixedRateString = "${report.interval:30s}")
    @SingleNode(value = "'job:balance-report'", holdAtLeast = "${report.hold-at-least:10s}")
    public void report() {
        // runs on one node per tick, and keeps the others out for at least 10 s
    }
    // end::single-node-use[]
}
