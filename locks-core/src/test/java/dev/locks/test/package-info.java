/** Test support shared by every backend's tests (published in the locks-core test-jar). */
package dev.locks.test;
