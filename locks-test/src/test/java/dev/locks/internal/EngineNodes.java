package dev.locks.internal;

import dev.locks.AcquireOptions;
import dev.locks.LocksClock;
import dev.locks.LocksObserver;
import dev.locks.spi.RemoteLockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test's nodes: engine registries with the default settings, each over a store of its own, closed together after
 * each test (register it with {@code @RegisterExtension}).
 */
final class EngineNodes implements AfterEachCallback {

    private final String backend;
    private final List<EngineLockRegistry> nodes = new ArrayList<>();

    EngineNodes(String backend) {
        this.backend = backend;
    }

    /** A new node in front of {@code store}. */
    EngineLockRegistry node(RemoteLockStore store) {
        EngineLockRegistry node = new EngineLockRegistry(new LockEngine.Settings(backend, AcquireOptions.defaults(),
                Duration.ZERO, 100, false, LocksClock.system(), LocksObserver.NONE), store) {
        };
        nodes.add(node);
        return node;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        nodes.forEach(EngineLockRegistry::close);
        nodes.clear();
    }
}
