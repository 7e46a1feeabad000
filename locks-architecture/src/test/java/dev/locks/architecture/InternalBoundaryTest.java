package dev.locks.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.JavaTypeVariable;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code dev.locks.internal} is the core's implementation, free to change in any release: no other module may
 * use it, no public signature outside it may name one of its types, and the core's packages do not depend on
 * each other in a circle (a backend author builds on
 * {@code dev.locks.spi} and {@code dev.locks.support}; an application on {@code dev.locks}). This module sees the
 * main classes of every published module and of the benchmarks; tests are left out (the engine's own tests sit
 * in {@code dev.locks.internal} on purpose).
 */
class InternalBoundaryTest {

    private static final String INTERNAL = "dev.locks.internal..";

    private static final JavaClasses MAIN_CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.locks");

    private static final DescribedPredicate<JavaClass> IN_LOCKS_CORE = DescribedPredicate.describe(
            "in locks-core", javaClass -> javaClass.getSource()
                    .map(source -> source.getUri().toString().matches(".*/locks-core(/target/classes/|-[^/]*\\.jar!/).*"))
                    .orElse(false));

    @Test
    void importsTheClassesOfEveryModule() {
        // a rule over no classes passes vacuously: make sure each module's classes were found
        for (String module : List.of("dev.locks.LockRegistry", "dev.locks.internal.LockEngine",
                "dev.locks.contract.LockRegistryContract", "dev.locks.redis.RedisLockRegistry",
                "dev.locks.jdbc.JdbcLockRegistry", "dev.locks.spring.LocksAutoConfiguration",
                "dev.locks.benchmarks.proto.ProtoRedis")) {
            assertThat(MAIN_CLASSES.contain(module)).as(module).isTrue();
        }
        assertThat(IN_LOCKS_CORE.test(MAIN_CLASSES.get("dev.locks.internal.LockEngine"))).isTrue();
        assertThat(IN_LOCKS_CORE.test(MAIN_CLASSES.get("dev.locks.redis.RedisLockRegistry"))).isFalse();
    }

    @Test
    void noModuleButTheCoreUsesInternals() {
        ArchRule rule = noClasses().that(DescribedPredicate.not(IN_LOCKS_CORE))
                .should().dependOnClassesThat().resideInAPackage(INTERNAL)
                .because("dev.locks.internal is no API: other modules use dev.locks, dev.locks.spi and "
                        + "dev.locks.support");
        rule.check(MAIN_CLASSES);
    }

    @Test
    void noPublicSignatureNamesAnInternalType() {
        ArchRule rule = classes().that().resideOutsideOfPackage(INTERNAL)
                .and(DescribedPredicate.describe("visible outside their package", InternalBoundaryTest::exposed))
                .should(new ArchCondition<>("name no dev.locks.internal type in a public or protected signature") {
                    @Override
                    public void check(JavaClass javaClass, ConditionEvents events) {
                        for (String violation : internalTypesInSignature(javaClass)) {
                            events.add(SimpleConditionEvent.violated(javaClass, violation));
                        }
                    }
                });
        rule.check(MAIN_CLASSES);
    }

    /**
     * A type of {@code dev.locks.internal} is public only if another package of {@code locks-core} uses it (Java
     * has no visibility between package and public); every other one is package-private, so that what the
     * package's public face shows is what the rest of the core builds on.
     */
    @Test
    void anInternalTypeIsPublicOnlyForAnotherCorePackage() {
        ArchRule rule = classes().that().resideInAPackage(INTERNAL).and().arePublic().and().areTopLevelClasses()
                .should(new ArchCondition<>("be used by another package of locks-core") {
                    @Override
                    public void check(JavaClass javaClass, ConditionEvents events) {
                        boolean used = javaClass.getDirectDependenciesToSelf().stream()
                                .map(dependency -> dependency.getOriginClass())
                                .anyMatch(origin -> IN_LOCKS_CORE.test(origin)
                                        && !origin.getPackageName().equals("dev.locks.internal"));
                        if (!used) {
                            events.add(SimpleConditionEvent.violated(javaClass, javaClass.getName() + " is public but"
                                    + " no other package of locks-core uses it: make it package-private"));
                        }
                    }
                });
        rule.check(MAIN_CLASSES);
    }

    /**
     * The core's packages depend on each other one way only: the API ({@code dev.locks}) on none of the others,
     * and {@code dev.locks.internal} on no package that builds on it ({@code dev.locks.support}, the in-memory
     * backend). Before issue 12, {@code Lease} and {@code dev.locks.internal} imported each other.
     */
    @Test
    void theCorePackagesHaveNoCycles() {
        SliceAssignment byPackage = new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                return IN_LOCKS_CORE.test(javaClass) ? SliceIdentifier.of(javaClass.getPackageName())
                        : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the packages of locks-core";
            }
        };
        slices().assignedFrom(byPackage).should().beFreeOfCycles().check(MAIN_CLASSES);
    }

    /** Public top-level types, and public or protected types nested in them. */
    private static boolean exposed(JavaClass javaClass) {
        if (javaClass.isAnonymousClass() || javaClass.isLocalClass()) {
            return false;
        }
        Set<JavaModifier> modifiers = javaClass.getModifiers();
        if (javaClass.getEnclosingClass().isEmpty()) {
            return modifiers.contains(JavaModifier.PUBLIC);
        }
        return (modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED))
                && exposed(javaClass.getEnclosingClass().get());
    }

    /** Each place where {@code javaClass}'s visible signature (header or member) names an internal type. */
    private static List<String> internalTypesInSignature(JavaClass javaClass) {
        List<String> found = new ArrayList<>();
        javaClass.getSuperclass().ifPresent(type -> note(found, javaClass.getName() + " extends", type));
        javaClass.getInterfaces().forEach(type -> note(found, javaClass.getName() + " implements", type));
        for (JavaTypeVariable<JavaClass> variable : javaClass.getTypeParameters()) {
            variable.getBounds().forEach(bound -> note(found, javaClass.getName() + " type parameter", bound));
        }
        for (JavaField field : javaClass.getFields()) {
            if (visible(field)) {
                note(found, field.getFullName(), field.getType());
            }
        }
        for (JavaCodeUnit code : javaClass.getCodeUnits()) {
            if (!visible(code) || code.getModifiers().contains(JavaModifier.SYNTHETIC)
                    || code.getModifiers().contains(JavaModifier.BRIDGE)) {
                continue;
            }
            note(found, code.getFullName() + " returns", code.getReturnType());
            code.getParameterTypes().forEach(type -> note(found, code.getFullName() + " takes", type));
            code.getThrowsClause().getTypes().forEach(type -> note(found, code.getFullName() + " throws", type));
            for (JavaTypeVariable<? extends JavaCodeUnit> variable : code.getTypeParameters()) {
                variable.getBounds().forEach(bound -> note(found, code.getFullName() + " type parameter", bound));
            }
        }
        return found;
    }

    private static boolean visible(JavaMember member) {
        Set<JavaModifier> modifiers = member.getModifiers();
        return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
    }

    private static void note(List<String> found, String where, JavaType type) {
        Collection<JavaClass> involved = type.getAllInvolvedRawTypes();
        for (JavaClass raw : involved) {
            if (raw.getPackageName().equals("dev.locks.internal")
                    || raw.getPackageName().startsWith("dev.locks.internal.")) {
                found.add(where + " " + raw.getName());
            }
        }
    }
}
