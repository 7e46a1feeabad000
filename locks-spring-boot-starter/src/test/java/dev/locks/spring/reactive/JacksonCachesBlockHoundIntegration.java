package dev.locks.spring.reactive;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * One of BlockHound's allowances in these tests, none of it in the locks code: Jackson 3 builds its deserializers
 * under a {@code ReentrantLock} the first time it meets a type, and two event loops meeting {@code Integer} at once
 * (the WebClient of the concurrent-stream test) park on it. Loaded by BlockHound through
 * {@code META-INF/services/reactor.blockhound.integration.BlockHoundIntegration}.
 */
public class JacksonCachesBlockHoundIntegration implements BlockHoundIntegration {

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside("tools.jackson.databind.deser.DeserializerCache",
                "_createAndCacheValueDeserializer");
    }
}
