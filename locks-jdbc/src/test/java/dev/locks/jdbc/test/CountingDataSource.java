package dev.locks.jdbc.test;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that records every statement executed on its connections (one execution = one round
 * trip), and otherwise passes everything through ({@code unwrap} included, so that the listener still reaches
 * the driver's connection).
 */
public final class CountingDataSource implements DataSource {

    private final DataSource target;
    private final List<String> executed = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger opened = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.LongAdder polls = new java.util.concurrent.atomic.LongAdder();

    public CountingDataSource(DataSource target) {
        this.target = target;
    }

    /** The SQL of every statement executed so far, in order. */
    public List<String> executed() {
        return List.copyOf(executed);
    }

    /**
     * How many of {@link #executed()} a release poller ran (its thread, {@code locks-jdbc-poll}: one query per node
     * every poll interval, whatever the callers do).
     */
    public long executedByPollers() {
        return polls.sum();
    }

    /** How many connections were taken from it so far. */
    public int opened() {
        return opened.get();
    }

    public void reset() {
        executed.clear();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(target.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(target.getConnection(username, password));
    }

    private Connection wrap(Connection connection) {
        opened.incrementAndGet();
        return proxy(Connection.class, connection, (method, args) -> {
            Object result = method.invoke(connection, args);
            if (result instanceof PreparedStatement prepared) {
                String sql = (String) args[0];
                return proxy(PreparedStatement.class, prepared, (m, a) -> {
                    if (m.getName().startsWith("execute")) {
                        executed(sql);
                    }
                    return m.invoke(prepared, a);
                });
            }
            if (result instanceof Statement plain) {
                return proxy(Statement.class, plain, (m, a) -> {
                    if (m.getName().startsWith("execute")) {
                        executed((String) a[0]);
                    }
                    return m.invoke(plain, a);
                });
            }
            return result;
        });
    }

    private void executed(String sql) {
        executed.add(sql);
        if (Thread.currentThread().getName().startsWith("locks-jdbc-poll")) {
            polls.increment();
        }
    }

    @FunctionalInterface
    private interface Call {
        Object invoke(Method method, Object[] args) throws Exception;
    }

    private static <T> T proxy(Class<T> type, T target, Call call) {
        InvocationHandler handler = (proxy, method, args) -> {
            try {
                return call.invoke(method, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type},
                handler));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return target.isWrapperFor(iface);
    }
}
