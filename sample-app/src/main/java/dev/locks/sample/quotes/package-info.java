/**
 * A slow quote service behind {@code @FetchOrCompute}, and a stampede of concurrent callers that shows
 * the quote computed once for all of them.
 */
package dev.locks.sample.quotes;
