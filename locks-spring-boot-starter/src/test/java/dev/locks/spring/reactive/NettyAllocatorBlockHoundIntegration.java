package dev.locks.spring.reactive;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * BlockHound's allowance for Netty's buffer allocator, none of it in the locks code: when many responses are written
 * at once from Reactor's parallel threads (error responses of hung computations cancelled together at their compute
 * timeout), Netty 4.2's adaptive allocator grows its magazines under a {@code StampedLock}, a brief lock that parks
 * under contention. Loaded by BlockHound through
 * {@code META-INF/services/reactor.blockhound.integration.BlockHoundIntegration}.
 */
public class NettyAllocatorBlockHoundIntegration implements BlockHoundIntegration {

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup",
                "tryExpandMagazines");
    }
}
