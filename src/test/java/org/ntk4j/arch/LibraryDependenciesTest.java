package org.ntk4j.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The library keeps to its own dependencies: picocli (optional in the pom) is used by the CLI only,
 * XChart (optional) by the report's plots and the CLI's theory tables only, and no library package
 * depends on the CLI. A consumer of the artifact, who has neither on the classpath, thus never loads
 * a class that needs them unless it calls the report's plotting.
 */
class LibraryDependenciesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.ntk4j");
    }

    @Test
    void onlyTheCliUsesPicocli() {
        noClasses()
                .that()
                .resideOutsideOfPackage("org.ntk4j.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("picocli..")
                .check(classes);
    }

    @Test
    void onlyReportAndCliUseXChart() {
        noClasses()
                .that()
                .resideOutsideOfPackages("org.ntk4j.report..", "org.ntk4j.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.knowm.xchart..")
                .check(classes);
    }

    @Test
    void theLibraryDoesNotDependOnTheCli() {
        noClasses()
                .that()
                .resideOutsideOfPackage("org.ntk4j.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.ntk4j.cli..")
                .check(classes);
    }
}
