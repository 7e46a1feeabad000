package dev.locks.sample.quotes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.stereotype.Component;

/** Fires many concurrent callers at one uncached quote, and counts how often it was computed. */
@Component
public class Stampede {

    private final QuoteService quotes;

    Stampede(QuoteService quotes) {
        this.quotes = quotes;
    }

    /**
     * Drops the cached quote of {@code symbol}, then lets {@code callers} threads ask for it at the same
     * moment. Without stampede protection each of them would compute it; with it, one does and the others
     * wait for its value.
     */
    public Report run(String symbol, int callers) {
        quotes.refresh(symbol);
        long computationsBefore = quotes.computations();
        ExecutorService pool = Executors.newFixedThreadPool(callers, new CustomizableThreadFactory("stampede-"));
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Quote>> answers = new ArrayList<>(callers);
            for (int i = 0; i < callers; i++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    return quotes.quote(symbol);
                }));
            }
            long started = System.nanoTime();
            start.countDown();
            Set<Quote> distinct = new HashSet<>();
            int got = 0;
            for (Future<Quote> answer : answers) {
                Quote quote = get(answer);
                if (quote != null) {
                    got++;
                    distinct.add(quote);
                }
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            return new Report(symbol, callers, quotes.computations() - computationsBefore, got, distinct.size(),
                    took.toMillis());
        }
        finally {
            pool.shutdownNow();
        }
    }

    /** The caller's quote, or {@code null} if it failed or took over a minute. */
    private static Quote get(Future<Quote> answer) {
        try {
            return answer.get(1, TimeUnit.MINUTES);
        }
        catch (ExecutionException | TimeoutException ex) {
            return null;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * What a stampede did.
     *
     * @param computations how many times the quote was computed during the stampede (1)
     * @param callersWithValue how many callers got a quote
     * @param distinctValues how many different quotes they got (1: every caller got the same one)
     */
    public record Report(String symbol, int callers, long computations, int callersWithValue, int distinctValues,
            long elapsedMillis) {
    }
}
