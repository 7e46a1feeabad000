package dev.locks.spring;

/** The backends {@code locks.backend} names. */
public enum LocksBackend {

    /** In-memory, for one JVM: {@code dev.locks.local}. */
    LOCAL,

    /** Redis, for several JVMs: {@code dev.locks.redis} from {@code dev.locks:locks-redis}. */
    REDIS,

    /** A table in the application's database (PostgreSQL), for several JVMs: {@code dev.locks.jdbc} from {@code dev.locks:locks-jdbc}. */
    JDBC
}
