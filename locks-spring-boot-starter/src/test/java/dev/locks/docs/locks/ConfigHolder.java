package dev.locks.docs.locks;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.LockRegistry;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** A configuration reload under a write lock, while requests read it under shared locks. */
class ConfigHolder {

    record Config(Map<String, String> values) {
    }

    static final class MutableConfig {

        private volatile Config current = new Config(Map.of());

        Config snapshot() {
            return current;
        }

        void replaceWith(Config config) {
            current = config;
        }
    }

    private final LockRegistry locks;
    private final MutableConfig config = new MutableConfig();
    private final Supplier<Config> loader;

    ConfigHolder(LockRegistry locks, Supplier<Config> loader) {
        this.locks = locks;
        this.loader = loader;
    }

    // tag::shared[]
    public Config current() {
        try (Lease read = locks.acquire(List.of("config"), AcquireOptions.defaults().shared())) {
            return config.snapshot();              // any number of readers at once
        }
    }

    public void reload() {
        try (Lease write = locks.acquire(List.of("config"))) {
            config.replaceWith(loader.get());      // readers wait; new readers queue behind this writer
        }
    }
    // end::shared[]
}
