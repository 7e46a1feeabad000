package dev.locks.internal;

import dev.locks.spi.RemoteLockStore;
import dev.locks.support.AbstractLockRegistry;

/**
 * An {@link AbstractLockRegistry} on engine settings given whole, for the engine's own tests (which run it
 * in front of an in-memory store without a backend module). A test helper, not in locks-core: there it would
 * make {@code dev.locks.internal} and {@code dev.locks.support} depend on each other. Backends extend
 * {@link AbstractLockRegistry}.
 */
public abstract class EngineLockRegistry extends AbstractLockRegistry {

    protected EngineLockRegistry(LockEngine.Settings settings, RemoteLockStore store) {
        super(new SettingsBuilder(settings), store);
    }

    /** A builder set to {@code settings}, which are valid already. */
    private static final class SettingsBuilder extends AbstractLockRegistry.Builder<SettingsBuilder> {

        SettingsBuilder(LockEngine.Settings settings) {
            super(settings.backend());
            defaultOptions(settings.defaults())
                    .cleanupInterval(settings.cleanupInterval())
                    .cleanupBatchSize(settings.batchSize())
                    .watchdog(settings.watchdog())
                    .clock(settings.clock())
                    .observer(settings.observer())
                    .maxKeys(settings.keyLimits().maxKeys())
                    .maxKeyLength(settings.keyLimits().maxKeyLength());
        }
    }
}
