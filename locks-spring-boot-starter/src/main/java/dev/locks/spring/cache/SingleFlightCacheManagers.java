package dev.locks.spring.cache;

import dev.locks.ComputeCache;
import dev.locks.LocksObserver;
import dev.locks.spring.interceptor.CallObservations;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.NameMatchMethodPointcutAdvisor;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.util.ClassUtils;

/**
 * Wraps the application's {@link CacheManager} beans, as they are created, so that the caches they hand out are
 * {@link SingleFlightCache}s: all of them, or only those named in {@code locks.cache.cache-names}. A manager stays
 * the bean it was, of its own class: it is replaced by a class-based proxy of it (a subclass, so an injection point
 * of {@code CaffeineCacheManager} or {@code RedisCacheManager} still takes it) whose only change is
 * {@code getCache(name)}; a manager of a final class gets an interface-based proxy. Every other call goes to the
 * manager itself, so Spring Boot's cache endpoint and cache metrics see its caches as before (the metrics of a
 * wrapped cache are its target's: {@link SingleFlightCacheMeterBinderProvider}).
 *
 * <p>A cache that is already a {@code SingleFlightCache} (a composite manager of wrapped managers) is not wrapped
 * again; each wrapped cache is made once per target and kept.
 */
public final class SingleFlightCacheManagers implements BeanPostProcessor, DisposableBean {

    /** How many threads at most wait for the asynchronous misses of other nodes. */
    private static final int WAIT_THREADS = 64;

    private final Set<String> cacheNames;

    private final ThreadPoolExecutor waits;

    private final CacheFlights flights;

    /**
     * @param cacheNames the names of the caches to wrap; empty: all
     * @param computeCache the compute cache that coordinates the misses, looked up on the first miss
     * @param observations the Observations of the misses, looked up on the first miss
     */
    public SingleFlightCacheManagers(Set<String> cacheNames, Supplier<ComputeCache> computeCache,
            Supplier<CallObservations> observations) {
        this(cacheNames, computeCache, observations, () -> LocksObserver.NONE);
    }

    /**
     * @param cacheNames the names of the caches to wrap; empty: all
     * @param computeCache the compute cache that coordinates the misses, looked up on the first miss
     * @param observations the Observations of the misses, looked up on the first miss
     * @param events the compute cache's observers, looked up on the first miss: they learn how the callers that
     *        waited for their node's first caller of a miss ended, which the compute cache does not see
     */
    public SingleFlightCacheManagers(Set<String> cacheNames, Supplier<ComputeCache> computeCache,
            Supplier<CallObservations> observations, Supplier<LocksObserver> events) {
        this.cacheNames = Set.copyOf(cacheNames);
        this.waits = waits();
        this.flights = new CacheFlights(computeCache, observations, events, waits);
    }

    /**
     * Where the asynchronous misses wait, off their callers' threads: up to {@value #WAIT_THREADS} daemon threads
     * "locks-cache-N", gone after a minute idle, the rest queued (the computer of a miss never waits there: it
     * returns at once).
     */
    private static ThreadPoolExecutor waits() {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(WAIT_THREADS, WAIT_THREADS, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, "locks-cache-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    /** Stops the threads of the asynchronous misses when the application closes. */
    @Override
    public void destroy() {
        waits.shutdown();
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof CacheManager) || bean instanceof Wrapped) {
            return bean;
        }
        ProxyFactory proxy = new ProxyFactory(bean);
        Class<?> type = ClassUtils.getUserClass(bean);
        proxy.setProxyTargetClass(!Modifier.isFinal(type.getModifiers()));
        if (!proxy.isProxyTargetClass()) {
            proxy.setInterfaces(ClassUtils.getAllInterfaces(bean));
        }
        proxy.addInterface(Wrapped.class);
        NameMatchMethodPointcutAdvisor getCache = new NameMatchMethodPointcutAdvisor(new GetCache(beanName));
        getCache.setMappedName("getCache");
        proxy.addAdvisor(getCache);
        proxy.setFrozen(true); // every other method goes straight to the manager; getCache's chain is fixed
        return proxy.getProxy(type.getClassLoader());
    }

    /** Marks a cache manager that this post-processor has wrapped. */
    public interface Wrapped {
    }

    /** Wraps what {@code getCache(name)} returns. */
    private final class GetCache implements MethodInterceptor {

        private final String manager;

        private final ConcurrentMap<String, SingleFlightCache> wrapped = new ConcurrentHashMap<>();

        GetCache(String manager) {
            this.manager = manager;
        }

        @Override
        public Object invoke(MethodInvocation invocation) throws Throwable {
            Object result = invocation.proceed();
            return result instanceof Cache cache && invocation.getArguments().length == 1 ? wrap(cache) : result;
        }

        private Cache wrap(Cache cache) {
            if (cache instanceof SingleFlightCache || !(cacheNames.isEmpty() || cacheNames.contains(cache.getName()))) {
                return cache;
            }
            SingleFlightCache known = wrapped.get(cache.getName());
            if (known != null && known.getTargetCache() == cache) {
                return known; // every call of a cached method asks: one lookup, no lock
            }
            return wrapped.compute(cache.getName(), (name, made) -> made != null && made.getTargetCache() == cache
                    ? made : new SingleFlightCache(cache, manager, flights));
        }
    }
}
