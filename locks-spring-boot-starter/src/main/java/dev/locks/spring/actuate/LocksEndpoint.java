package dev.locks.spring.actuate;

import dev.locks.Computation;
import dev.locks.ComputeCache;
import dev.locks.HeldLock;
import dev.locks.LockRegistry;
import java.security.Principal;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

/**
 * The {@code locks} endpoint: the locks held now and the computations in flight.
 *
 * <ul>
 *   <li>{@code GET /actuator/locks}: {@code {"backend", "locks": [...], "computations": [...], "truncated"}},
 *       at most {@code locks.endpoint.max-listed} (default {@value #DEFAULT_MAX_LISTED}) locks and as many
 *       computations; {@code "truncated": true} when there were more. {@code ?limit=N} asks for fewer. The
 *       listing reads no more than it returns ({@link LockRegistry#heldLocks(int)}), so that a million locks
 *       cost what a thousand do;</li>
 *   <li>{@code GET /actuator/locks/{key}}: one lock, or 404 when the key is not held (a key may contain
 *       {@code /}). A caller who may not see keys gets 404 whether or not the key is held: a lookup must not
 *       tell them which keys (customer ids, say) are locked, and 404 is what SPEC promises for a key
 *       the caller cannot be shown;</li>
 *   <li>{@code DELETE /actuator/locks/{key}}: force-releases the key and logs a warning. Only with
 *       {@code management.endpoint.locks.access=unrestricted}: under the default (read-only) access Spring
 *       Boot refuses it.</li>
 * </ul>
 *
 * <p>Keys show as {@value #MASK} unless {@code locks.endpoint.show-keys} lets the caller see them (with
 * {@code when-authorized}: an authenticated caller, in one of the roles when roles are given). Timestamps
 * are ISO-8601; a lock that never expires has {@code "expiresAt": null}.
 */
@Endpoint(id = "locks", defaultAccess = Access.READ_ONLY)
public class LocksEndpoint {

    /** What a hidden key shows as. */
    public static final String MASK = "******";

    /** The default of {@code locks.endpoint.max-listed}. */
    public static final int DEFAULT_MAX_LISTED = 1000;

    private static final Log logger = LogFactory.getLog(LocksEndpoint.class);

    private final LockRegistry registry;

    private final @Nullable ComputeCache cache;

    private final Show showKeys;

    private final Set<String> roles;

    private final int maxListed;

    /**
     * As {@link #LocksEndpoint(LockRegistry, ComputeCache, Show, Collection, int)}, listing at most
     * {@value #DEFAULT_MAX_LISTED}.
     */
    public LocksEndpoint(LockRegistry registry, @Nullable ComputeCache cache, Show showKeys,
            Collection<String> roles) {
        this(registry, cache, showKeys, roles, DEFAULT_MAX_LISTED);
    }

    /**
     * @param cache the compute cache, or {@code null} when the application has none
     * @param showKeys who sees keys
     * @param roles the roles that see keys under {@link Show#WHEN_AUTHORIZED}; empty for any authenticated
     *        caller
     * @param maxListed at most this many locks, and as many computations, per listing
     *        ({@code locks.endpoint.max-listed})
     */
    public LocksEndpoint(LockRegistry registry, @Nullable ComputeCache cache, Show showKeys,
            Collection<String> roles, int maxListed) {
        if (maxListed < 1) {
            throw new IllegalArgumentException("maxListed must be at least 1, was " + maxListed);
        }
        this.registry = registry;
        this.cache = cache;
        this.showKeys = showKeys;
        this.roles = Set.copyOf(roles);
        this.maxListed = maxListed;
    }

    /**
     * The held locks and the computations in flight, at most {@code limit} (or {@code locks.endpoint.max-listed}
     * when that is less, or no limit is given) of each.
     *
     * @param limit {@code ?limit=N}, for fewer than {@code max-listed}; optional
     */
    @ReadOperation
    public LocksDescriptor locks(SecurityContext securityContext, @Nullable Integer limit) {
        if (limit != null && limit < 0) {
            throw new InvalidEndpointRequestException("limit must be >= 0, was " + limit, "negative limit");
        }
        int listed = (limit == null) ? maxListed : Math.min(limit, maxListed);
        boolean showKey = showKeys.isShown(securityContext, roles);
        List<HeldLock> held = registry.heldLocks(listed + 1);
        List<Computation> inFlight = (cache != null) ? cache.computations(listed + 1) : List.of();
        boolean truncated = held.size() > listed || inFlight.size() > listed;
        List<HeldLockDescriptor> locks = first(held, listed).stream()
                .map(lock -> HeldLockDescriptor.of(lock, showKey))
                .toList();
        List<ComputationDescriptor> computations = first(inFlight, listed).stream()
                .map(computation -> ComputationDescriptor.of(computation, showKey))
                .toList();
        return new LocksDescriptor(registry.backend(), locks, computations, truncated);
    }

    /**
     * The lock held on {@code key}; {@code null} (404 over the web) when the key is not held, or when the
     * caller may not see keys, held or not (the same answer either way, so the lookup is no oracle).
     */
    @ReadOperation
    public @Nullable HeldLockDescriptor lock(SecurityContext securityContext,
            @Selector(match = Match.ALL_REMAINING) String[] key) {
        if (!showKeys.isShown(securityContext, roles)) {
            return null;
        }
        return registry.heldLock(join(key)).map(lock -> HeldLockDescriptor.of(lock, true)).orElse(null);
    }

    /**
     * Releases {@code key} whoever holds it: an operator's last resort. Its holder's lease turns lost
     * ({@code isHeld()} false), and the holder may still be running the work that the lock guarded.
     */
    @DeleteOperation
    public ReleaseDescriptor release(SecurityContext securityContext,
            @Selector(match = Match.ALL_REMAINING) String[] key) {
        String joined = join(key);
        boolean released;
        try {
            released = registry.forceRelease(joined);
        }
        catch (UnsupportedOperationException ex) {
            throw new InvalidEndpointRequestException(ex.getMessage(), "forced release is not supported");
        }
        if (released) {
            Principal principal = securityContext.getPrincipal();
            logger.warn("Force-released lock '" + (showKeys == Show.NEVER ? MASK : joined) + "' through the locks endpoint"
                    + ((principal != null) ? " (by " + principal.getName() + ")" : ""));
        }
        return new ReleaseDescriptor(released);
    }

    private static <T> List<T> first(List<T> list, int count) {
        return list.size() <= count ? list : list.subList(0, count);
    }

    private static String join(String[] segments) {
        return String.join("/", segments);
    }

    /**
     * The whole endpoint's answer.
     *
     * @param truncated whether there were more locks or computations than listed
     */
    public record LocksDescriptor(String backend, List<HeldLockDescriptor> locks,
            List<ComputationDescriptor> computations, boolean truncated) implements OperationResponseBody {
    }

    /**
     * One held lock, as {@link HeldLock} shows it.
     *
     * @param expiresAt {@code null} when the lock never expires
     */
    public record HeldLockDescriptor(String key, String owner, long fencingToken, Instant acquiredAt,
            @Nullable Instant expiresAt, boolean stale) implements OperationResponseBody {

        static HeldLockDescriptor of(HeldLock lock, boolean showKey) {
            Instant expiresAt = Instant.MAX.equals(lock.expiresAt()) ? null : lock.expiresAt();
            return new HeldLockDescriptor(showKey ? lock.key() : MASK, lock.owner(), lock.fencingToken(),
                    lock.acquiredAt(), expiresAt, lock.stale());
        }
    }

    /** One computation in flight, as {@link Computation} shows it. */
    public record ComputationDescriptor(String key, String computer, int waiters, Instant startedAt) {

        static ComputationDescriptor of(Computation computation, boolean showKey) {
            return new ComputationDescriptor(showKey ? computation.key() : MASK, computation.computer(),
                    computation.waiters(), computation.startedAt());
        }
    }

    /** The answer of a forced release: whether a lock was there to release. */
    public record ReleaseDescriptor(boolean released) implements OperationResponseBody {
    }
}
