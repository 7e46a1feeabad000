package dev.locks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * The test classpath without some jars (really absent, not merely hidden as a {@code FilteredClassLoader} hides
 * them), for applications started inside it: what an application that never added an optional dependency has.
 */
final class IsolatedClasspath extends URLClassLoader {

    private IsolatedClasspath(URL[] urls) {
        super(urls, ClassLoader.getPlatformClassLoader());
    }

    /** The test classpath without every entry whose path contains one of {@code jars}. */
    static IsolatedClasspath without(List<String> jars) throws MalformedURLException {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (jars.stream().noneMatch(entry::contains)) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        assertThat(urls).as("the test classpath (java.class.path)").hasSizeGreaterThan(10);
        return new IsolatedClasspath(urls.toArray(URL[]::new));
    }

    /** Whether this class loader has loaded (linked) the class of that name. */
    boolean hasLoaded(String className) {
        return findLoadedClass(className) != null;
    }

    /** Runs {@code application}'s static {@code method(String[])} as this class loader has it, and returns its result. */
    Object run(Class<?> application, String method, String... args) throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(this);
        try {
            return loadClass(application.getName()).getMethod(method, String[].class).invoke(null, (Object) args);
        }
        finally {
            thread.setContextClassLoader(previous);
        }
    }
}
