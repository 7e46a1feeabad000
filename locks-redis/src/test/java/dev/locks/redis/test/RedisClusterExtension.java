package dev.locks.redis.test;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One {@link RedisCluster} per test class, started before its first test and stopped after its last; every
 * live master is emptied before each test. Register it as
 * <pre>{@code @RegisterExtension static final RedisClusterExtension redis = new RedisClusterExtension(3, 0);}</pre>
 */
public final class RedisClusterExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private final int masters;
    private final int replicasPerMaster;
    private RedisCluster cluster;
    private LettuceConnectionFactory shared;

    public RedisClusterExtension(int masters, int replicasPerMaster) {
        this.masters = masters;
        this.replicasPerMaster = replicasPerMaster;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = RedisCluster.start(masters, replicasPerMaster);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        cluster.flushAll();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
        }
    }

    public RedisCluster cluster() {
        return cluster;
    }

    /** The class's shared connection factory, made on first use; destroyed with the cluster. */
    public synchronized LettuceConnectionFactory connectionFactory() {
        if (shared == null) {
            shared = cluster.newConnectionFactory();
        }
        return shared;
    }
}
