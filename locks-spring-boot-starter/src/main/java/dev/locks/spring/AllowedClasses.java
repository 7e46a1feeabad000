package dev.locks.spring;

import dev.locks.spi.JdkValueSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The classes the default serializer of computed values may read, on Redis and JDBC alike: the JDK's value types,
 * and the {@code allowed-classes} given, or else the application's auto-configuration packages (with their
 * subpackages). The patterns given replace the application's packages, never the JDK's value types: an
 * application that adds {@code com.example.**} still stores an {@code Integer}.
 */
final class AllowedClasses {

    private AllowedClasses() {
    }

    /**
     * The default serializer, {@code build} from the patterns; a pattern it refuses stops startup naming
     * {@code property}.
     */
    static <S> S serializer(LocksProperties.Serialization serialization, String property, BeanFactory beanFactory,
            Function<List<String>, S> build) {
        List<String> allowed = patterns(serialization, beanFactory);
        try {
            return build.apply(allowed);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(property, allowed, ex.getMessage());
        }
    }

    static List<String> patterns(LocksProperties.Serialization serialization, BeanFactory beanFactory) {
        List<String> allowed = serialization.getAllowedClasses();
        if (!allowed.isEmpty()) {
            return JdkValueSerializer.withJdkTypes(allowed);
        }
        List<String> defaults = new ArrayList<>(JdkValueSerializer.JDK_TYPES);
        if (AutoConfigurationPackages.has(beanFactory)) {
            AutoConfigurationPackages.get(beanFactory).forEach(name -> defaults.add(name + ".**"));
        }
        return defaults;
    }
}
