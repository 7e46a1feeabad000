package dev.locks.redis.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/** The lines a worker JVM prints, read as they come, for the cross-JVM tests. */
public final class ProcessLines {

    private ProcessLines() {
    }

    /** Starts a daemon thread that queues every line of {@code process}'s standard output until it ends. */
    public static BlockingQueue<String> follow(Process process, String threadName) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        }, threadName);
        reader.setDaemon(true);
        reader.start();
        return lines;
    }
}
