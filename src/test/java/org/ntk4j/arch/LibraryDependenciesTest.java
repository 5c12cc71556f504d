package org.ntk4j.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The library keeps to its own dependencies: picocli (optional in the pom) is used by the CLI only,
 * XChart (optional) by one class of the report ({@code XChartPlots}, loaded only when XChart is on the classpath)
 * and the CLI's theory tables, and no library package depends on the CLI. A consumer of the artifact, who has
 * neither on the classpath, thus never loads a class that needs them.
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
    void onlyOneReportClassAndTheCliUseXChart() {
        noClasses()
                .that()
                .resideOutsideOfPackages("org.ntk4j.cli..")
                .and()
                .doNotHaveFullyQualifiedName("org.ntk4j.report.XChartPlots")
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
