package dev.locks.benchmarks.jdbc;

/** {@link DatabasePoolTest} on the benchmark's MariaDB ({@code -p db=mariadb}, MariaDB Connector/J). */
class MariaDbPoolTest extends DatabasePoolTest {

    @Override
    String db() {
        return DatabasePool.MARIADB;
    }
}
