/**
 * The locks sample: a small bank ({@code accounts}) whose transfers run under {@code @Locked}, and a slow
 * quote service ({@code quotes}) behind {@code @FetchOrCompute}. Run it with
 * {@code java -jar sample-app/target/sample-app-0.1.0-SNAPSHOT.jar} (in memory), or with
 * {@code --spring.profiles.active=redis} for several instances sharing locks on Redis; its README shows the
 * curl lines.
 */
package dev.locks.sample;
