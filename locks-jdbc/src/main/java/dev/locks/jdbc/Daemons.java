package dev.locks.jdbc;

import java.util.concurrent.ThreadFactory;

/** Threads of the registry's own: named, and daemons, so that they never keep a JVM alive. */
final class Daemons {

    private Daemons() {
    }

    static ThreadFactory named(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
