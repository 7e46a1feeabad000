package dev.locks.redis;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A node's subscription to a channel's shard channels on a Redis Cluster, through the Lettuce client of the
 * application's {@link LettuceConnectionFactory} (Spring Data Redis has no sharded pub/sub): the scripts
 * {@code SPUBLISH} a notice on the channel of the slot of the keys they touched
 * ({@link ClusterSlots#shardChannel}), which only that slot's shard carries, instead of a {@code PUBLISH} that
 * the cluster bus copies to every node.
 *
 * <p>A slot's channel is subscribed only once this node waits on a key of that slot
 * ({@link ReleaseSubscription#want}: a lock waiter blocked by a key, a value waiter behind another node's
 * computation), and then kept: the subscription grows with the slots this node has waited on, up to every slot
 * for a node that waits everywhere, and starting sends nothing (a {@code SSUBSCRIBE} takes the channels of one
 * slot only, so subscribing every slot at start cost 16,384 calls per channel kind). Never a subscription per
 * lock. A wanted slot is subscribed at once on this subscription's thread, on one pub/sub connection per master
 * (Lettuce's node connections of one cluster pub/sub connection), the slots wanted meanwhile together; each
 * check that subscribed slots runs {@code confirmed}, so that waiters look again for a notice they may have
 * missed before; until then they poll at their retry interval.
 *
 * <p>A check every {@value #CHECK_MILLIS} ms costs nothing while every wanted slot's channel is held on an open
 * connection; otherwise (a master's connection lost, a slot moved away, which Redis tells with a
 * {@code sunsubscribe}, or a subscription failed) it refreshes the client's view of the cluster and subscribes
 * the missing wanted slots on their masters now, retrying every check until each is covered. The view is
 * refreshed every {@value #REFRESH_MILLIS} ms besides, once a slot is wanted.
 */
final class LettuceShardSubscription implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LettuceShardSubscription.class.getName());
    static final long CHECK_MILLIS = 1_000;
    static final long REFRESH_MILLIS = 60_000;
    private static final long SUBSCRIBE_TIMEOUT_MILLIS = 10_000;
    private static final int BATCH = 512;
    private static final long START_MILLIS = 5_000;

    private final RedisClusterClient client;
    private final String channel;
    /** channels[s]: the shard channel of slot s, or null when that name lands in another slot (a hash-tagged prefix). */
    private final byte[][] channels;
    /** wanted.get(s) == 1: a waiter of this node waited on slot s; shared with the subscription's successors. */
    private final AtomicIntegerArray wanted;
    private final Consumer<byte[]> messages;
    private final Runnable confirmed;
    private final ScheduledThreadPoolExecutor thread;
    private final Object lock = new Object();
    private StatefulRedisClusterPubSubConnection<byte[], byte[]> connection;
    /** at[s]: the master ("host:port") whose connection holds slot s's channel; null when none does (yet). */
    private final String[] at = new String[ClusterSlots.COUNT];
    private final Map<String, StatefulRedisPubSubConnection<byte[], byte[]>> nodes = new HashMap<>();
    private long refreshedAt;
    /** Whether the client's view of the cluster may be out of date: a connection lost, a slot moved, a failure. */
    private boolean stale;
    /** The first failure of the last pass over the masters, if any, and how many slots it subscribed. */
    private Exception problem;
    private int subscribed;
    private boolean failing;
    private volatile boolean closed;

    /** Whether {@code factory} is a Lettuce one on a Redis Cluster (its native client is a {@link RedisClusterClient}). */
    static boolean supports(RedisConnectionFactory factory) {
        return factory instanceof LettuceConnectionFactory lettuce && lettuce.getNativeClient() instanceof RedisClusterClient;
    }

    /**
     * @param messages receives each message's body, on a Lettuce I/O thread: it must hand it on, not block
     * @param confirmed run after each check that subscribed slots (the first, and after a failover)
     */
    LettuceShardSubscription(RedisConnectionFactory factory, String channel, AtomicIntegerArray wanted,
            Consumer<byte[]> messages, Runnable confirmed) {
        this.client = (RedisClusterClient) ((LettuceConnectionFactory) factory).getRequiredNativeClient();
        this.channel = channel;
        this.wanted = wanted;
        this.messages = messages;
        this.confirmed = confirmed;
        this.channels = new byte[ClusterSlots.COUNT][];
        for (int slot = 0; slot < ClusterSlots.COUNT; slot++) {
            String name = ClusterSlots.shardChannel(channel, slot);
            if (ClusterSlotHashUtil.calculateSlot(name) == slot) {
                channels[slot] = name.getBytes(StandardCharsets.UTF_8);
            }
        }
        this.thread = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread checker = new Thread(runnable, "locks-redis-shards");
            checker.setDaemon(true);
            return checker;
        });
    }

    /**
     * Subscribes the slots already wanted (those of a subscription this one replaces) on this subscription's
     * thread, waiting up to {@value #START_MILLIS} ms for it, then checks every {@value #CHECK_MILLIS} ms.
     * {@code confirmed} tells when; it runs once at once besides: the subscription of no slot stands.
     */
    void start() {
        confirmed.run();
        Future<?> first = thread.submit(this::check);
        thread.scheduleWithFixedDelay(this::check, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
        try {
            first.get(START_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException slow) {
            // it goes on, or is tried again, in the background
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A slot was wanted ({@link ReleaseSubscription#want}): its channel is subscribed now, on this thread. */
    void wanted() {
        try {
            thread.execute(this::check);
        } catch (RejectedExecutionException closing) {
            // closed meanwhile: a successor subscribes the wanted slots
        }
    }

    private void check() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            try {
                if (connection == null) {
                    connection = client.connectPubSub(ByteArrayCodec.INSTANCE);
                    connection.setNodeMessagePropagation(true); // the node connections' messages reach the listener
                    connection.addListener(new Listener());
                }
                nodes.forEach((address, node) -> {
                    if (!node.isOpen()) { // its subscriptions may not come back with it: subscribe again
                        forget(address);
                        if (servesSlots(address)) { // lost, and the client's view has no new master for its slots
                            stale = true; // yet: refresh it every check until it has, wanted slots or not
                        }
                    }
                });
                boolean due = System.currentTimeMillis() - refreshedAt >= REFRESH_MILLIS;
                if (complete() && !due && !stale && refreshedAt != 0) {
                    return;
                }
                boolean refreshed = false;
                if (refreshedAt == 0 || due || stale) { // not for a slot newly wanted: the client's view serves
                    if (refreshedAt != 0) { // the first check takes the view the client has
                        client.refreshPartitions();
                        refreshed = true;
                    }
                    refreshedAt = System.currentTimeMillis();
                    stale = false;
                }
                problem = null;
                subscribed = 0;
                subscribeMissing();
                if (subscribed > 0) {
                    confirmed.run();
                }
                if (complete()) {
                    if (failing) {
                        failing = false;
                        LOG.log(Level.INFO, () -> "subscribed to every wanted shard channel of '" + channel + "' again");
                    }
                } else {
                    stale = true; // a master gone, or a slot moved: the next check refreshes the view first
                    if (problem != null || refreshed) {
                        failed(problem);
                    }
                }
            } catch (RuntimeException e) {
                stale = true;
                failed(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // closing
            }
        }
    }

    /**
     * SSUBSCRIBEs, on each reachable master, its wanted slots' channels that no connection holds, counting them
     * in {@link #subscribed}. A master that fails leaves the first failure in {@link #problem}; the others go on.
     */
    private void subscribeMissing() throws InterruptedException {
        for (RedisClusterNode master : client.getPartitions()) {
            try {
                subscribeMissing(master);
            } catch (RuntimeException | ExecutionException | TimeoutException e) {
                if (problem == null) {
                    problem = e;
                }
            }
        }
    }

    private void subscribeMissing(RedisClusterNode master)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (!master.is(NodeFlag.UPSTREAM) || master.is(NodeFlag.FAIL) || master.is(NodeFlag.EVENTUAL_FAIL)) {
            return;
        }
        String address = master.getUri().getHost() + ":" + master.getUri().getPort();
        StatefulRedisPubSubConnection<byte[], byte[]> node = nodes.get(address);
        if (node != null && !node.isOpen()) {
            return; // reconnecting, or gone: its slots wait for it or for their new master
        }
        if (node == null) { // held even while no slot of it is wanted: its loss is how a failover shows here
            node = connection.getConnection(master.getUri().getHost(), master.getUri().getPort());
            nodes.put(address, node);
        }
        List<Integer> missing = new ArrayList<>();
        for (int slot : master.getSlots()) {
            if (channels[slot] != null && wanted.get(slot) == 1 && !address.equals(at[slot])) {
                missing.add(slot);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        for (int from = 0; from < missing.size(); from += BATCH) { // a batch in flight at a time, even under load
            List<Integer> batch = missing.subList(from, Math.min(missing.size(), from + BATCH));
            List<CompletableFuture<Void>> replies = new ArrayList<>(batch.size());
            for (int slot : batch) {
                replies.add(node.async().ssubscribe(channels[slot]).toCompletableFuture());
            }
            try {
                CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
                        .get(SUBSCRIBE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            } finally {
                for (int i = 0; i < batch.size(); i++) { // the slots subscribed stay so, whatever failed
                    CompletableFuture<Void> reply = replies.get(i);
                    if (reply.isDone() && !reply.isCompletedExceptionally()) {
                        at[batch.get(i)] = address;
                        subscribed++;
                    }
                }
            }
        }
    }

    /** Whether every wanted slot's channel is held by a connection. */
    private boolean complete() {
        for (int slot = 0; slot < ClusterSlots.COUNT; slot++) {
            if (channels[slot] != null && wanted.get(slot) == 1 && at[slot] == null) {
                return false;
            }
        }
        return true;
    }

    /** Whether the client's view of the cluster has {@code address} as a master serving slots. */
    private boolean servesSlots(String address) {
        for (RedisClusterNode node : client.getPartitions()) {
            if (address.equals(node.getUri().getHost() + ":" + node.getUri().getPort())) {
                return node.is(NodeFlag.UPSTREAM) && !node.getSlots().isEmpty();
            }
        }
        return false;
    }

    /** How many wanted slots' channels no connection holds now (tests). */
    int missingSlots() {
        synchronized (lock) {
            int missing = 0;
            for (int slot = 0; slot < ClusterSlots.COUNT; slot++) {
                if (channels[slot] != null && wanted.get(slot) == 1 && at[slot] == null) {
                    missing++;
                }
            }
            return missing;
        }
    }

    private void forget(String address) {
        for (int slot = 0; slot < ClusterSlots.COUNT; slot++) {
            if (address.equals(at[slot])) {
                at[slot] = null;
            }
        }
    }

    private void failed(Throwable cause) {
        if (!failing && !closed) {
            failing = true;
            LOG.log(Level.WARNING, () -> "could not subscribe to every wanted shard channel of '" + channel + "' ("
                    + missingSlots() + " slots missing); waiters on keys there poll at their retry interval, trying"
                    + " again every " + CHECK_MILLIS + " ms", cause);
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
        synchronized (lock) {
            if (connection != null) {
                connection.closeAsync();
                connection = null;
            }
        }
    }

    /** The shard channels' messages, and Redis taking a slot's channel away (the slot moved to another master). */
    private final class Listener extends RedisClusterPubSubAdapter<byte[], byte[]> {

        @Override
        public void smessage(RedisClusterNode node, byte[] shardChannel, byte[] message) {
            messages.accept(message);
        }

        @Override
        public void sunsubscribed(RedisClusterNode node, byte[] shardChannel, long count) {
            if (closed) {
                return;
            }
            int slot = ClusterSlotHashUtil.calculateSlot(shardChannel);
            try {
                thread.execute(() -> { // never under this I/O thread: a check may be waiting for it
                    synchronized (lock) {
                        at[slot] = null;
                        stale = true;
                    }
                });
            } catch (RejectedExecutionException closing) {
                // closed meanwhile
            }
        }
    }
}
