package dev.locks.jdbc.test;

import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** H2 databases of a test's own: in memory, in this JVM, each with a new name (nothing shared between tests). */
public final class H2Databases {

    private static final AtomicInteger NEXT = new AtomicInteger();

    private H2Databases() {
    }

    /** A new empty in-memory database, kept until the JVM exits; a non-pooling data source on it. */
    public static DataSource newDatabase() {
        return new DriverManagerDataSource("jdbc:h2:mem:locks-" + NEXT.incrementAndGet() + ";DB_CLOSE_DELAY=-1",
                "sa", "");
    }
}
