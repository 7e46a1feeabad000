package dev.locks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.script.RedisScript;

/** The scripts' sharded twins, for sharded pub/sub on a Redis Cluster. */
class LockScriptsTest {

    @Test
    void everyPublishingScriptsTwinShouldPublishOnTheShardOnly() {
        for (RedisScript<?> script : List.of(LockScripts.ACQUIRE, LockScripts.DEQUEUE, LockScripts.RELEASE,
                LockScripts.FORCE_RELEASE)) {
            String twin = LockScripts.sharded(script).getScriptAsString();
            assertThat(twin).contains("redis.call('SPUBLISH',").doesNotContain("'PUBLISH'");
            assertThat(twin.replace("'SPUBLISH'", "'PUBLISH'")).isEqualTo(script.getScriptAsString());
            assertThat(LockScripts.sharded(script)).as("made once").isSameAs(LockScripts.sharded(script));
            assertThat(LockScripts.sharded(script).getResultType()).isEqualTo(script.getResultType());
        }
    }

    @Test
    void aScriptNamingPublishOtherwiseShouldBeRefused() {
        RedisScript<Long> odd = RedisScript.of("return redis.call(\"PUBLISH\", ARGV[1], ARGV[2])", Long.class);

        assertThatThrownBy(() -> LockScripts.sharded(odd)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("PUBLISH");
    }
}
