package dev.locks.benchmarks.spring;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The cost of annotation-driven interception on a Spring bean, with the same SpEL key
 * ({@code 'account:' + #id}) everywhere: {@code @Locked} (proxy, key, acquire and release),
 * {@code @Locked} on a {@code Mono} (the same lock, taken on subscription; the caller blocks for the value), and
 * {@code @FetchOrCompute} on a hit, against {@code @Cacheable(sync = true)} on a hit (the overhead users already
 * accept) and the bare method on an instance that is not a proxy. Each thread has an id of its own, whose
 * values are cached before measuring, so every cache call is a hit. Ten warm-up iterations: the proxies' deep
 * call chains take the JIT longer than a plain call (on a busy machine, several seconds).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 10, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class SpringAnnotations {

    private ConfigurableApplicationContext context;
    Accounts accounts;
    private final Accounts bare = new Accounts();

    @Setup
    public void setUp() {
        context = BenchmarkContext.start();
        accounts = context.getBean(Accounts.class);
    }

    @TearDown
    public void tearDown() {
        context.close();
    }

    /** One caller: its own id, its values already cached. */
    @State(Scope.Thread)
    public static class Caller {
        String id;

        @Setup
        public void setUp(ThreadParams thread, SpringAnnotations benchmark) {
            id = Integer.toString(1000 + thread.getThreadIndex());
            benchmark.accounts.cachedBalance(id);
            benchmark.accounts.computedBalance(id);
        }
    }

    @Benchmark
    public Object bareMethod(Caller caller) {
        return bare.balance(caller.id);
    }

    @Benchmark
    public Object locked(Caller caller) {
        return accounts.lockedBalance(caller.id);
    }

    /**
     * {@code @Locked} on a {@code Mono}, subscribed and awaited by the caller: in memory the acquire on the caller's
     * thread; on a remote backend the acquire's round trip on the registry's pool ({@code acquireAsync}) and the
     * release on {@code boundedElastic}, two thread hand-offs per call that the blocking form does not make.
     */
    @Benchmark
    public Object lockedMono(Caller caller) {
        return accounts.lockedMonoBalance(caller.id).block();
    }

    @Benchmark
    public Object fetchOrComputeHit(Caller caller) {
        return accounts.computedBalance(caller.id);
    }

    @Benchmark
    public Object cacheableSyncHit(Caller caller) {
        return accounts.cachedBalance(caller.id);
    }
}
