package dev.locks.internal;

import java.util.function.BooleanSupplier;

/** What an attempt found in its way: a key held by someone else, or waited for by an older waiter. */
interface Blocker {

    /** The key in the way. */
    String key();

    /**
     * Whether it has gone since the attempt (checked once the waiter is in the key's queue, where it is
     * signalled for anything later): then it tries again at once instead of parking.
     */
    boolean released();

    /**
     * Not a holder: the remote store could not make the attempt within the caller's wait, its own resources all
     * being in use ({@link dev.locks.spi.StoreBusyException}); {@code reason} is the store's sentence for it.
     */
    record Busy(String key, String reason) implements Blocker {
        @Override
        public boolean released() {
            return false;
        }
    }

    /** A blocker that is not a table entry: a key held elsewhere, or claimed by an older waiter. */
    static Blocker of(String key, BooleanSupplier released) {
        return new Blocker() {
            @Override
            public String key() {
                return key;
            }

            @Override
            public boolean released() {
                return released.getAsBoolean();
            }
        };
    }
}
