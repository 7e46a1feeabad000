package dev.locks.spring.actuate;

import dev.locks.ComputeCache;
import dev.locks.LockRegistry;
import dev.locks.LocksObserver;
import dev.locks.spring.interceptor.CallNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The {@code locks.*} meters, fed by the events of the lock registry and the compute cache it observes.
 *
 * <table>
 *   <caption>Meters (each also tagged {@code backend}; none tagged with a lock key)</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th></tr>
 *   <tr><td>{@code locks.acquire}</td><td>timer</td><td>{@code result} = acquired|timeout|skipped|error,
 *       {@code name}</td></tr>
 *   <tr><td>{@code locks.held}</td><td>gauge</td><td></td></tr>
 *   <tr><td>{@code locks.stale.removed}</td><td>counter</td><td>{@code reason} = dead-owner|expired,
 *       {@code by} = acquire|sweep</td></tr>
 *   <tr><td>{@code locks.sweep}</td><td>timer</td><td></td></tr>
 *   <tr><td>{@code locks.lease.lost}</td><td>counter</td><td></td></tr>
 *   <tr><td>{@code locks.compute}</td><td>timer</td><td>{@code outcome} =
 *       hit|computed|waited|failed|promoted|unreadable, and refreshed|refresh-failed|refresh-skipped|stale for
 *       refresh-ahead and stale-if-error, {@code name}</td></tr>
 *   <tr><td>{@code locks.compute.in.flight}</td><td>gauge</td><td></td></tr>
 * </table>
 *
 * <p>{@code name} is the annotated method's ({@code <simple class name>.<method name>}; {@link CallNames}), or
 * {@value CallNames#NONE} for direct calls of the API: one set of timers per annotated method, created on its
 * first call and then found with one map lookup (the number of annotated methods bounds their number). The
 * other meters are the node's, not a call's.
 *
 * <p>It is both the {@link LocksObserver} that the registry and the cache are built with and a
 * {@link MeterBinder}, and it takes the registry and the cache only as lazy suppliers: so it depends on
 * nothing when it is created, and the registry that needs it can be built after it. Its meters are created
 * once, in {@link #bindTo}; events that come before are dropped, and an event costs an array lookup and a
 * record, never a lookup by name.
 */
public final class LocksMetrics implements LocksObserver, MeterBinder {

    /**
     * The {@code result} of an annotated call's timeout that skipped its method ({@code @Locked(onTimeout =
     * "skip")}, {@link CallNames#skipping}): counted instead of {@code timeout}, after the registry's results.
     */
    static final String SKIPPED = "skipped";

    private static final int SKIPPED_INDEX = AcquireResult.values().length;

    private final Supplier<? extends @Nullable LockRegistry> registry;

    private final Supplier<? extends @Nullable ComputeCache> cache;

    private volatile LockMeters[] lockMeters = new LockMeters[0];

    private volatile ComputeMeters[] computeMeters = new ComputeMeters[0];

    /**
     * @param registry the lock registry, looked up when meters are bound; may supply {@code null}
     * @param cache the compute cache, looked up when meters are bound; may supply {@code null}
     */
    public LocksMetrics(Supplier<? extends @Nullable LockRegistry> registry,
            Supplier<? extends @Nullable ComputeCache> cache) {
        this.registry = registry;
        this.cache = cache;
    }

    /** Creates the meters in {@code meterRegistry}; each meter registry bound gets every later event. */
    @Override
    public synchronized void bindTo(MeterRegistry meterRegistry) {
        LockRegistry locks = registry.get();
        if (locks != null) {
            lockMeters = append(lockMeters, new LockMeters(meterRegistry, locks));
        }
        ComputeCache computeCache = cache.get();
        if (computeCache != null) {
            computeMeters = append(computeMeters, new ComputeMeters(meterRegistry, computeCache));
        }
    }

    /** The annotated call's name, for the {@code name} tag of an event that arrives on another thread. */
    @Override
    public Executor callerContext() {
        return CallNames.capture();
    }

    @Override
    public void onAcquire(AcquireResult result, long nanos) {
        LockMeters[] all = lockMeters;
        if (all.length == 0) {
            return;
        }
        String name = CallNames.current();
        int index = result == AcquireResult.TIMEOUT && CallNames.skipping() ? SKIPPED_INDEX : result.ordinal();
        for (LockMeters meters : all) {
            meters.acquire.of(name)[index].record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void onStaleRemoved(StaleReason reason, Remover by) {
        for (LockMeters meters : lockMeters) {
            meters.staleRemoved[reason.ordinal()][by.ordinal()].increment();
        }
    }

    @Override
    public void onSweep(int removed, long nanos) {
        for (LockMeters meters : lockMeters) {
            meters.sweep.record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void onLeaseLost(String key) {
        for (LockMeters meters : lockMeters) {
            meters.leaseLost.increment();
        }
    }

    @Override
    public void onCompute(ComputeResult result, long nanos) {
        ComputeMeters[] all = computeMeters;
        if (all.length == 0) {
            return;
        }
        String name = CallNames.current();
        for (ComputeMeters meters : all) {
            meters.compute.of(name)[result.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    private static <T> T[] append(T[] array, T element) {
        T[] longer = Arrays.copyOf(array, array.length + 1);
        longer[array.length] = element;
        return longer;
    }

    /** NaN rather than an exception when the backend cannot be reached: the health shows why. */
    private static double count(IntSupplier count) {
        try {
            return count.getAsInt();
        }
        catch (RuntimeException ex) {
            return Double.NaN;
        }
    }

    /**
     * The timers of one meter: for each {@code name} tag, one timer a value of {@code tag}, in the order of the
     * values; those of {@value CallNames#NONE} made at once, the others on their first event.
     */
    private static final class NamedTimers {

        private final Map<String, Timer[]> byName = new ConcurrentHashMap<>();

        private final Function<String, Timer[]> make;

        NamedTimers(MeterRegistry meterRegistry, String meter, String description, Tags tags, String tag,
                List<String> values) {
            this.make = name -> values.stream().map(value -> Timer.builder(meter).description(description).tags(tags)
                    .tag("name", name).tag(tag, value).register(meterRegistry)).toArray(Timer[]::new);
            of(CallNames.NONE);
        }

        Timer[] of(String name) {
            Timer[] timers = byName.get(name);
            return (timers != null) ? timers : byName.computeIfAbsent(name, make);
        }
    }

    /** The lock meters of one meter registry, indexed by the ordinals of the event enums. */
    private static final class LockMeters {

        final NamedTimers acquire;

        final Counter[][] staleRemoved;

        final Timer sweep;

        final Counter leaseLost;

        LockMeters(MeterRegistry meterRegistry, LockRegistry locks) {
            Tags tags = Tags.of("backend", locks.backend());
            acquire = new NamedTimers(meterRegistry, "locks.acquire", "Time to acquire locks, by how the acquire ended",
                    tags, "result", Stream.concat(Arrays.stream(AcquireResult.values()).map(AcquireResult::tag),
                            Stream.of(SKIPPED)).toList());
            staleRemoved = Arrays.stream(StaleReason.values())
                    .map(reason -> Arrays.stream(Remover.values())
                            .map(by -> Counter.builder("locks.stale.removed")
                                    .description("Stale locks removed, by why they were stale and who removed them")
                                    .tags(tags).tag("reason", reason.tag()).tag("by", by.tag())
                                    .register(meterRegistry))
                            .toArray(Counter[]::new))
                    .toArray(Counter[][]::new);
            sweep = Timer.builder("locks.sweep")
                    .description("Sweeps for stale locks, scheduled or manual")
                    .tags(tags).register(meterRegistry);
            leaseLost = Counter.builder("locks.lease.lost")
                    .description("Leases that found they had lost their lock")
                    .tags(tags).register(meterRegistry);
            Gauge.builder("locks.held", locks, held -> count(held::heldCount))
                    .description("Keys held now")
                    .tags(tags).strongReference(true).register(meterRegistry);
        }
    }

    /** The compute meters of one meter registry, indexed by the ordinals of the outcome enum. */
    private static final class ComputeMeters {

        final NamedTimers compute;

        ComputeMeters(MeterRegistry meterRegistry, ComputeCache cache) {
            Tags tags = Tags.of("backend", cache.backend());
            compute = new NamedTimers(meterRegistry, "locks.compute",
                    "Fetch-or-compute calls, by how they ended for their caller", tags, "outcome",
                    Arrays.stream(ComputeResult.values()).map(ComputeResult::tag).toList());
            Gauge.builder("locks.compute.in.flight", cache, inFlight -> count(inFlight::inFlightCount))
                    .description("Computations in flight now")
                    .tags(tags).strongReference(true).register(meterRegistry);
        }
    }
}
