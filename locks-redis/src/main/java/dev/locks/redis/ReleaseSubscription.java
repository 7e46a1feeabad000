package dev.locks.redis;

import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Consumer;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The node's one subscription to a notice channel: a {@link RedisMessageListenerContainer} on the
 * application's connection factory, whose messages are decoded into keys on one daemon thread (never on the
 * client's I/O thread, so that a consumer may even call Redis). A blocking client (Jedis) also gets the
 * thread it sits in {@code SUBSCRIBE} on; Lettuce needs none. On a Redis Cluster through Lettuce
 * ({@link ClusterSlots#shardedPubSub}) it is a {@link LettuceShardSubscription} instead: one connection per
 * master, {@code SSUBSCRIBE}d to the channel of each slot this node's waiters waited on ({@link #want}), which
 * the scripts {@code SPUBLISH} on.
 *
 * <p>Once subscribed, Lettuce reconnects and subscribes again by itself after an outage. A subscription that
 * fails (Redis down while the node starts; a blocking client's connection lost) is replaced by a fresh
 * container every {@value #RETRY_MILLIS} ms until it succeeds; waiters poll at their retry interval meanwhile.
 * The container's own recovery is not used: it retries within the failing call chain, each retry one level
 * deeper, and a container stopped meanwhile may still subscribe.
 */
final class ReleaseSubscription implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ReleaseSubscription.class.getName());
    static final long RETRY_MILLIS = 1_000;

    private final RedisConnectionFactory factory;
    private final ChannelTopic topic;
    private final String channel;
    private final Consumer<String> released;
    private final Runnable subscribed;
    private final ScheduledThreadPoolExecutor thread;
    private final SimpleAsyncTaskExecutor subscriber;
    private final AtomicInteger confirmations = new AtomicInteger();
    /** On a Redis Cluster through Lettuce, the slots whose channels this node wants: kept across restarts. */
    private final AtomicIntegerArray wantedSlots = new AtomicIntegerArray(ClusterSlots.COUNT);
    private RedisMessageListenerContainer container;
    private volatile LettuceShardSubscription shards;
    private boolean failing;
    private boolean closed;

    /**
     * @param released receives each key of each message
     * @param subscribed run each time Redis confirms the subscription (first, and after every outage)
     */
    ReleaseSubscription(RedisConnectionFactory factory, String channel, Consumer<String> released,
            Runnable subscribed) {
        this.factory = factory;
        this.topic = ChannelTopic.of(channel);
        this.channel = channel;
        this.released = released;
        this.subscribed = subscribed;
        this.thread = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread notifier = new Thread(runnable, "locks-redis-notify");
            notifier.setDaemon(true);
            return notifier;
        });
        thread.setRemoveOnCancelPolicy(true);
        this.subscriber = new SimpleAsyncTaskExecutor("locks-redis-subscription-");
        subscriber.setDaemon(true);
    }

    /** Subscribes, or, when Redis cannot be reached now, keeps trying in the background. */
    synchronized void start() {
        if (closed || container != null || shards != null) {
            return;
        }
        RedisMessageListenerContainer candidate = null;
        try {
            if (ClusterSlots.shardedPubSub(factory)) {
                shards = new LettuceShardSubscription(factory, channel, wantedSlots, this::handOff, this::confirmed);
                shards.start(); // retries by itself
            } else {
                candidate = newContainer();
                candidate.start();
                container = candidate;
            }
            if (failing) {
                failing = false;
                LOG.log(Level.INFO, () -> "subscribed to Redis channel '" + channel + "' again");
            }
        } catch (RuntimeException e) {
            if (candidate != null) {
                destroy(candidate);
            }
            retryLater(e);
        }
    }

    /**
     * Subscribes anew on a fresh container. For a connection factory that was stopped and started again (a
     * paused application context): stopping it ends the subscription's connection without a word to the
     * container, so nothing else would subscribe again.
     */
    synchronized void restart() {
        if (closed) {
            return;
        }
        stop();
        start();
    }

    /** A subscription that worked has failed (a blocking client lost its connection): start a new one. */
    private synchronized void failed(RedisMessageListenerContainer failed, Throwable cause) {
        if (container == failed) {
            destroy(failed);
            container = null;
            retryLater(cause);
        }
    }

    private void retryLater(Throwable cause) {
        if (closed) {
            return;
        }
        if (!failing) {
            failing = true;
            LOG.log(Level.WARNING, () -> "could not subscribe to Redis channel '" + topic.getTopic()
                    + "'; waiters poll at their retry interval, trying again every " + RETRY_MILLIS + " ms", cause);
        }
        thread.schedule(this::start, RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * A waiter of this node waits for a notice on {@code publishedOn}, the channel a script on its key publishes
     * on: on a Redis Cluster through Lettuce, that shard channel's slot is subscribed from now on (at once, in
     * the background; {@code subscribed} runs once it is, so that the waiter looks again). Else nothing: the one
     * channel is subscribed already. Never blocks.
     */
    void want(String publishedOn) {
        if (wantedSlots.compareAndSet(ClusterSlots.slot(publishedOn), 0, 1)) {
            LettuceShardSubscription current = shards; // if none yet, the one that starts reads the slot
            if (current != null) {
                current.wanted();
            }
        }
    }

    /** How many times Redis confirmed the subscription: once, plus once per re-subscription after an outage. */
    int confirmations() {
        return confirmations.get();
    }

    private RedisMessageListenerContainer newContainer() {
        RedisMessageListenerContainer made = new RedisMessageListenerContainer() {
            @Override
            protected void handleSubscriptionException(CompletableFuture<Void> future, BackOffExecution backOff,
                    Throwable cause) {
                // closes the connection and fails the subscription, without the container's own recovery
                super.handleSubscriptionException(future, () -> BackOffExecution.STOP, cause);
                thread.execute(() -> failed(this, cause)); // never under this thread's locks
            }
        };
        made.setConnectionFactory(factory);
        made.setTaskExecutor(thread);
        made.setSubscriptionExecutor(subscriber);
        made.setErrorHandler(e -> LOG.log(Level.WARNING, "release notification failed", e));
        made.addMessageListener(new Listener(), topic);
        made.afterPropertiesSet();
        return made;
    }

    @Override
    public synchronized void close() {
        closed = true;
        stop();
        thread.shutdownNow();
        subscriber.close();
    }

    private void stop() {
        if (container != null) {
            destroy(container);
            container = null;
        }
        if (shards != null) {
            shards.close();
            shards = null;
        }
    }

    /** A message's body from a client I/O thread, delivered on this subscription's thread. */
    private void handOff(byte[] body) {
        try {
            thread.execute(() -> deliver(body));
        } catch (RejectedExecutionException closed) {
            // closed meanwhile: nobody waits for it
        }
    }

    /** Hands each key of a message's body to the consumer, on this subscription's thread. */
    private void deliver(byte[] body) {
        ReleaseMessage.decode(body, key -> {
            try {
                released.accept(key);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "release notification for '" + key + "' failed", e);
            }
        });
    }

    private void confirmed() {
        confirmations.incrementAndGet();
        try {
            subscribed.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "handling the (re)subscription to '" + channel + "' failed", e);
        }
    }

    /** On a Redis Cluster through Lettuce, how many slots' channels no connection holds now; else 0 (tests). */
    synchronized int missingShardChannels() {
        return shards == null ? 0 : shards.missingSlots();
    }

    private static void destroy(RedisMessageListenerContainer container) {
        try {
            container.destroy();
        } catch (Exception e) {
            LOG.log(Level.DEBUG, "closing the release subscription failed", e);
        }
    }

    /** Receives the channel's messages and the subscription confirmations. */
    private final class Listener implements MessageListener, SubscriptionListener {

        @Override
        public void onMessage(Message message, byte[] pattern) {
            deliver(message.getBody());
        }

        @Override
        public void onChannelSubscribed(byte[] channel, long count) {
            confirmed();
        }
    }
}
