package dev.locks.redis;

import dev.locks.AcquireOptions;
import dev.locks.Lease;
import dev.locks.redis.test.RedisConnections;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The other JVM of {@link CrossJvmLockTest}, started as
 * {@code java -cp <class path> dev.locks.redis.LockWorker <port> <command> <args...>}:
 * <ul>
 *   <li>{@code increment <times>}: increments the Redis counter {@code counter} with GET and SET under the
 *       lock {@code counter}, appending each lease's fencing token to the list {@code tokens};</li>
 *   <li>{@code hold <key> <lockTimeoutMillis> <watchdog> [<leaseMillis>]}: takes {@code key} and holds it until
 *       killed (a SIGTERM closes the registry, which releases it); a lock timeout of {@code infinite} is held
 *       under the registry's lease ({@code leaseMillis}, else the default);</li>
 *   <li>{@code permits <key> <n> <count> <lockTimeoutMillis> <watchdog>}: takes {@code count} of the {@code n}
 *       permits of {@code key} ({@link AcquireOptions#withPermits}), each a lease of its own, and holds them until
 *       killed.</li>
 * </ul>
 * It prints {@code READY} once its registry is built, then {@code HELD <token>} or {@code DONE}.
 */
public final class LockWorker {

    static final AcquireOptions PATIENT = AcquireOptions.defaults().withInfiniteRetries()
            .withRetryInterval(Duration.ofMillis(5)).withLockTimeout(Duration.ofSeconds(10));

    private LockWorker() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String command = args[1];
        PrintStream out = System.out;
        LettuceConnectionFactory factory = RedisConnections.connectionFactory(port);
        boolean watchdog = command.equals("hold") && Boolean.parseBoolean(args[4])
                || command.equals("permits") && Boolean.parseBoolean(args[6]);
        RedisLockRegistry.Builder builder = RedisLockRegistry.builder(factory).watchdog(watchdog);
        if (command.equals("hold") && args.length > 5) {
            builder.lease(Duration.ofMillis(Long.parseLong(args[5])));
        }
        RedisLockRegistry registry = builder.build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            registry.close();
            factory.destroy();
        }));
        out.println("READY");
        out.flush();
        switch (command) {
            case "increment" -> {
                increment(registry, new StringRedisTemplate(factory), Integer.parseInt(args[2]));
                out.println("DONE");
                out.flush();
                System.exit(0);
            }
            case "hold" -> {
                Lease lease = registry.acquire(List.of(args[2]), args[3].equals("infinite")
                        ? PATIENT.withInfiniteLockTimeout()
                        : PATIENT.withLockTimeout(Duration.ofMillis(Long.parseLong(args[3]))));
                out.println("HELD " + lease.fencingToken());
                out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
            case "permits" -> {
                AcquireOptions options = PATIENT.withPermits(Integer.parseInt(args[3]))
                        .withLockTimeout(Duration.ofMillis(Long.parseLong(args[5])));
                StringBuilder tokens = new StringBuilder();
                for (int i = 0; i < Integer.parseInt(args[4]); i++) {
                    tokens.append(' ').append(registry.acquire(List.of(args[2]), options).fencingToken());
                }
                out.println("HELD" + tokens);
                out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
            default -> throw new IllegalArgumentException("unknown command " + command);
        }
    }

    /** What both JVMs run: a read-modify-write that loses updates unless the lock excludes the other JVM. */
    static void increment(RedisLockRegistry registry, StringRedisTemplate redis, int times) {
        for (int i = 0; i < times; i++) {
            try (Lease lease = registry.acquire(List.of("counter"), PATIENT)) {
                String value = redis.opsForValue().get("counter");
                redis.opsForValue().set("counter", Long.toString(value == null ? 1 : Long.parseLong(value) + 1));
                redis.opsForList().rightPush("tokens", Long.toString(lease.fencingToken()));
            }
        }
    }
}
