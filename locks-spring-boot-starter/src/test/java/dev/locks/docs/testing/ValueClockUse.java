package dev.locks.docs.testing;

import java.time.Duration;

/** How a test moves the value clock (ValueClockTests in the starter does it for real). */
class ValueClockUse {

    interface Quotes {

        int price(String symbol);
    }

    void test(Quotes quotes) {
        // tag::value-clock-use[]
        // in the test: a hit, then past the TTL a new computation; lock waits still end after their wait time
        quotes.price("ACME");
        ValueClockConfig.VALUES.advance(Duration.ofMinutes(2));
        quotes.price("ACME");                                      // computed again
        // end::value-clock-use[]
    }
}
