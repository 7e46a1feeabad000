package dev.locks.spring;

import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The condition of {@link ConditionalOnLocksBackend}. Evaluated when beans are registered, so that it sees
 * a {@code RedisConnectionFactory} defined by an auto-configuration that runs before this starter's. An
 * invalid {@code locks.backend} fails here, before any bean is created.
 */
class OnLocksBackendCondition extends SpringBootCondition implements ConfigurationCondition {

    @Override
    public ConfigurationPhase getConfigurationPhase() {
        return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnLocksBackend.class.getName());
        LocksBackend wanted = (LocksBackend) attributes.get("value");
        BackendSelection selection =
                BackendSelection.select(context.getEnvironment(), context.getBeanFactory(), context.getClassLoader());
        ConditionMessage.Builder message = ConditionMessage.forCondition(ConditionalOnLocksBackend.class, wanted);
        String found = selection.backend().name().toLowerCase(java.util.Locale.ROOT) + " (" + selection.reason() + ")";
        return selection.backend() == wanted
                ? ConditionOutcome.match(message.foundExactly(found))
                : ConditionOutcome.noMatch(message.foundExactly(found));
    }
}
