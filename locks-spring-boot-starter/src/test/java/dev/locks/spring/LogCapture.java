package dev.locks.spring;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.slf4j.LoggerFactory;

/**
 * Every log record of this JVM while it is open, from both logging paths of an application: the library's
 * {@link System.Logger} (on JUL by default, which Boot's output capture does not see), and Commons Logging, which the
 * starter and Spring (its scheduler, say) log through, on Logback in these tests. Records are kept as
 * {@code "LEVEL logger: message"}.
 */
public final class LogCapture implements AutoCloseable {

    private final List<String> warnings = new CopyOnWriteArrayList<>();

    private final List<String> debug = new CopyOnWriteArrayList<>();

    private final java.util.logging.Logger julRoot = java.util.logging.Logger.getLogger("");

    private final Handler julHandler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            String line = record.getLevel() + " " + record.getLoggerName() + ": " + record.getMessage()
                    + (record.getThrown() == null ? "" : " " + record.getThrown());
            if (record.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
                warnings.add(line);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private final Logger logbackRoot = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    private final Logger interceptorLogger;

    private final Level interceptorLevel;

    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            String line = event.getLevel() + " " + event.getLoggerName() + ": " + event.getFormattedMessage()
                    + (event.getThrowableProxy() == null ? "" : " " + event.getThrowableProxy().getClassName());
            if (event.getLevel().isGreaterOrEqual(Level.WARN)) {
                warnings.add(line);
            }
            else if (event.getLevel() == Level.DEBUG) {
                debug.add(line);
            }
        }
    };

    /** Starts capturing; {@code debugLogger} is set to {@code DEBUG} meanwhile, so that its debug records are seen. */
    public LogCapture(String debugLogger) {
        julRoot.addHandler(julHandler);
        appender.setContext(logbackRoot.getLoggerContext());
        appender.start();
        logbackRoot.addAppender(appender);
        interceptorLogger = (Logger) LoggerFactory.getLogger(debugLogger);
        interceptorLevel = interceptorLogger.getLevel();
        interceptorLogger.setLevel(Level.DEBUG);
    }

    /** The records at {@code WARN} (JUL: {@code WARNING}) or above so far. */
    public List<String> warnings() {
        return warnings;
    }

    /** The Commons Logging records at {@code DEBUG} so far. */
    public List<String> debug() {
        return debug;
    }

    @Override
    public void close() {
        julRoot.removeHandler(julHandler);
        logbackRoot.detachAppender(appender);
        appender.stop();
        interceptorLogger.setLevel(interceptorLevel);
    }
}
