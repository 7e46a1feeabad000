package dev.locks.redis.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The test servers themselves: a server is the test's own process, never another redis-server that holds the
 * port it was given (another test JVM's on this machine: between {@code FreePorts.next()} and the start, or while
 * a test has stopped its server, another JVM may start one on the same port, whose tests then flush it under this
 * one's).
 */
class RedisServerTest {

    @Test
    void startShouldFailOnAPortThatAnotherServerHoldsRatherThanUseThatServer() {
        try (RedisServer other = RedisServer.start()) {
            other.command("SET", "theirs", "1");

            assertThatThrownBy(() -> RedisServer.startOn(other.port())).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(Integer.toString(other.port()));

            assertThat(other.isRunning()).isTrue();
            assertThat(other.command("GET", "theirs")).isEqualTo("1");
        }
    }

    @Test
    void restartShouldFailWhenAnotherServerTookThePortMeanwhile() {
        try (RedisServer server = RedisServer.start()) {
            server.stop();
            try (RedisServer other = RedisServer.startOn(server.port())) {
                assertThatThrownBy(server::restart).isInstanceOf(IllegalStateException.class);
                assertThat(server.isRunning()).isFalse();
                assertThat(other.isRunning()).isTrue();
            }
        }
    }
}
