package dev.locks.kotlin

import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.Test
import reactor.blockhound.BlockingOperationError

/**
 * That BlockHound watches this module's tests (its JUnit platform listener), so that their passing on
 * [LockedCoroutinesTests.NON_BLOCKING] means something.
 */
class BlockHoundInstalledTests {

    @Test
    fun aSleepOnTheCallersDispatcherShouldFail() {
        assertThatExceptionOfType(BlockingOperationError::class.java).isThrownBy {
            runBlocking { withContext(LockedCoroutinesTests.NON_BLOCKING) { Thread.sleep(1) } }
        }
    }
}
