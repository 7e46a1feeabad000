/**
 * The Java examples of README.md and docs/, compiled with the starter's tests (whose class path has every
 * backend, Reactor and WebFlux) and never run: each page's block is a region between {@code // tag::name[]}
 * and {@code // end::name[]} here, which the sample app's {@code DocsExamplesTests} compares with the page.
 * Nothing of Spring scans these packages.
 */
package dev.locks.docs;
