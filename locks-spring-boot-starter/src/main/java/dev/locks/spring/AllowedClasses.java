package dev.locks.spring;

import dev.locks.spi.JdkValueSerializer;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;

/**
 * The classes the default serializer of computed values may read, on Redis and JDBC alike: the
 * {@code allowed-classes} given, or else the JDK's value types and the application's auto-configuration packages
 * (with their subpackages).
 */
final class AllowedClasses {

    private AllowedClasses() {
    }

    static List<String> patterns(LocksProperties.Serialization serialization, BeanFactory beanFactory) {
        List<String> allowed = serialization.getAllowedClasses();
        if (!allowed.isEmpty()) {
            return allowed;
        }
        List<String> defaults = new ArrayList<>(JdkValueSerializer.JDK_TYPES);
        if (AutoConfigurationPackages.has(beanFactory)) {
            AutoConfigurationPackages.get(beanFactory).forEach(name -> defaults.add(name + ".**"));
        }
        return defaults;
    }
}
