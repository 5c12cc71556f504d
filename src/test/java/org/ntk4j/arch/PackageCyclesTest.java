package org.ntk4j.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The packages of ntk4j form no cycle. Layering, bottom to top: util/UserException, spec, data,
 * model, kernel, report (output files and plots), train, metrics, probe, job, shard, experiment, cli;
 * theory beside.
 */
class PackageCyclesTest {
    @Test
    void packagesAreFreeOfCycles() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.ntk4j");
        slices().matching("org.ntk4j.(*)..").should().beFreeOfCycles().check(classes);
    }
}
