package dev.locks.benchmarks.waiters;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A pool whose statements are counted as they execute ({@code execute*}), on every connection it hands out; those
 * executed by a node's release poller (its thread, {@code locks-jdbc-poll}) are counted apart. Everything else,
 * {@code unwrap} included, goes to the pool's own objects.
 */
final class CountingDataSource implements DataSource {

    private final DataSource pool;
    private final LongAdder statements = new LongAdder();
    private final LongAdder pollerStatements = new LongAdder();

    CountingDataSource(DataSource pool) {
        this.pool = pool;
    }

    /** Statements executed so far, outside the release pollers. */
    long statements() {
        return statements.sum();
    }

    /** Statements the release pollers executed so far. */
    long pollerStatements() {
        return pollerStatements.sum();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return counted(pool.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return counted(pool.getConnection(username, password));
    }

    private Connection counted(Connection connection) {
        return proxy(Connection.class, connection, (proxy, method, args) -> {
            Object result = invoke(connection, method, args);
            return result instanceof Statement statement ? counted(statement) : result;
        });
    }

    private Statement counted(Statement statement) {
        Class<? extends Statement> type = statement instanceof CallableStatement ? CallableStatement.class
                : statement instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
        return proxy(type, statement, (proxy, method, args) -> {
            if (method.getName().startsWith("execute")) {
                (Thread.currentThread().getName().startsWith("locks-jdbc-poll") ? pollerStatements : statements)
                        .increment();
            }
            return invoke(statement, method, args);
        });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static <T> T proxy(Class<T> type, Object target, InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type},
                handler));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return pool.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return pool.isWrapperFor(iface);
    }
}
