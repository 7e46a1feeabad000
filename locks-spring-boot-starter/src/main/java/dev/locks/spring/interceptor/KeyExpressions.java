package dev.locks.spring.interceptor;

import java.lang.reflect.Method;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.expression.spel.support.StandardTypeConverter;
import org.springframework.expression.spel.support.StandardTypeLocator;
import org.springframework.util.ClassUtils;

/**
 * Parses and checks key expressions once, and builds the cheap per-call context they are evaluated in.
 *
 * <p>Expressions are compiled to bytecode after some interpreted runs where SpEL can
 * ({@link SpelCompilerMode#MIXED}), and fall back to interpretation where it cannot. They see the
 * parameters by name ({@code #from}), by position ({@code #p0}, {@code #a0}), beans ({@code @beanName})
 * and {@link ExpressionRoot} as {@code #root}.
 */
final class KeyExpressions {

    private final SpelExpressionParser parser;

    private final StandardEvaluationContext shared;

    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

    private final BeanFactory beanFactory;

    KeyExpressions(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
        ClassLoader classLoader = beanFactory instanceof ConfigurableBeanFactory configurable
                ? configurable.getBeanClassLoader() : ClassUtils.getDefaultClassLoader();
        this.parser = new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED, classLoader));
        this.shared = new StandardEvaluationContext();
        shared.setBeanResolver(new BeanFactoryResolver(beanFactory));
        shared.setTypeLocator(new StandardTypeLocator(classLoader));
        shared.setTypeConverter(new StandardTypeConverter());
    }

    MethodParameters parameters(Method method) {
        return MethodParameters.of(method, parameterNames);
    }

    /**
     * Parses {@code text} and checks every variable, function and bean it refers to.
     *
     * @throws IllegalArgumentException with the reason, when it does not parse or refers to what is not there
     */
    Expression parse(String text, MethodParameters parameters) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("the expression is empty");
        }
        SpelExpression expression;
        try {
            expression = parser.parseRaw(text);
        }
        catch (ParseException ex) {
            throw new IllegalArgumentException("it is not a valid SpEL expression: " + ex.getMessage());
        }
        check(expression.getAST(), parameters);
        return expression;
    }

    /**
     * The value of {@code expression} in {@code context}.
     *
     * @param what names the expression in an error: the annotation, the expression's text and the method
     * @throws IllegalArgumentException naming {@code what}, with SpEL's error as its cause, when the expression
     *         fails for this call (a property of {@code null}, a method that throws)
     */
    static Object evaluate(Expression expression, EvaluationContext context, Supplier<String> what) {
        try {
            return expression.getValue(context);
        }
        catch (EvaluationException ex) {
            throw new IllegalArgumentException(what.get() + " could not be evaluated for this call: "
                    + ex.getMessage(), ex);
        }
    }

    /** The context in which the expressions of one call are evaluated. */
    EvaluationContext context(MethodParameters parameters, MethodInvocation invocation) {
        Object[] args = invocation.getArguments();
        return new InvocationContext(shared, parameters, args,
                new ExpressionRoot(invocation.getMethod(), args, invocation.getThis()));
    }

    private void check(SpelNode node, MethodParameters parameters) {
        if (node instanceof VariableReference) {
            String name = node.toStringAST().substring(1);
            if (!"root".equals(name) && !"this".equals(name) && parameters.indexOf(name) < 0) {
                throw new IllegalArgumentException("'#" + name + "' is not a parameter of the method: "
                        + parameters.describe());
            }
        }
        else if (node instanceof FunctionReference) {
            String call = node.toStringAST();
            throw new IllegalArgumentException("'" + call.substring(0, call.indexOf('(')) + "(...)' calls a function,"
                    + " and key expressions have none: call a method on a parameter or a bean instead");
        }
        else if (node instanceof BeanReference) {
            String name = node.toStringAST().replace("'", "");
            name = name.startsWith("@") ? name.substring(1) : name;
            if (!beanFactory.containsBean(name)) {
                throw new IllegalArgumentException("there is no bean named '" + name + "'");
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            check(node.getChild(i), parameters);
        }
    }
}
