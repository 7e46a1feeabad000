package dev.locks.spring.interceptor;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.ConstructorResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.IndexAccessor;
import org.springframework.expression.MethodResolver;
import org.springframework.expression.OperatorOverloader;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.TypeComparator;
import org.springframework.expression.TypeConverter;
import org.springframework.expression.TypeLocator;
import org.springframework.expression.TypedValue;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * The evaluation context of one call: the call's arguments as variables, over a context shared by every
 * call (accessors, resolvers, the bean resolver, with their caches). Building one costs two small objects;
 * a variable lookup is one map lookup and an array read, with no reflection and no parameter-name discovery.
 */
final class InvocationContext implements EvaluationContext {

    private final StandardEvaluationContext shared;

    private final MethodParameters parameters;

    private final Object[] args;

    private final TypedValue root;

    private Map<String, Object> assigned;

    InvocationContext(StandardEvaluationContext shared, MethodParameters parameters, Object[] args, Object root) {
        this.shared = shared;
        this.parameters = parameters;
        this.args = args;
        this.root = new TypedValue(root);
    }

    @Override
    public Object lookupVariable(String name) {
        if (assigned != null && assigned.containsKey(name)) {
            return assigned.get(name);
        }
        int index = parameters.indexOf(name);
        return index < 0 || index >= args.length ? null : args[index];
    }

    @Override
    public void setVariable(String name, Object value) {
        if (assigned == null) {
            assigned = new HashMap<>(4);
        }
        assigned.put(name, value);
    }

    @Override
    public TypedValue getRootObject() {
        return root;
    }

    @Override
    public List<PropertyAccessor> getPropertyAccessors() {
        return shared.getPropertyAccessors();
    }

    @Override
    public List<IndexAccessor> getIndexAccessors() {
        return shared.getIndexAccessors();
    }

    @Override
    public List<ConstructorResolver> getConstructorResolvers() {
        return shared.getConstructorResolvers();
    }

    @Override
    public List<MethodResolver> getMethodResolvers() {
        return shared.getMethodResolvers();
    }

    @Override
    public BeanResolver getBeanResolver() {
        return shared.getBeanResolver();
    }

    @Override
    public TypeLocator getTypeLocator() {
        return shared.getTypeLocator();
    }

    @Override
    public TypeConverter getTypeConverter() {
        return shared.getTypeConverter();
    }

    @Override
    public TypeComparator getTypeComparator() {
        return shared.getTypeComparator();
    }

    @Override
    public OperatorOverloader getOperatorOverloader() {
        return shared.getOperatorOverloader();
    }
}
