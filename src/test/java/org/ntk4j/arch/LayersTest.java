package org.ntk4j.arch;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import org.junit.jupiter.api.Test;

/**
 * Every package stands on a floor of {@link Floors#ORDER} and uses only its own floor and those below: no arrow
 * runs back up.
 */
class LayersTest {
    /** The layered architecture of {@link Floors#ORDER}: each floor accessed only by the floors above it. */
    static LayeredArchitecture floors() {
        LayeredArchitecture a = layeredArchitecture().consideringOnlyDependenciesInLayers();
        for (Floors.Floor f : Floors.ORDER) {
            a = a.layer(f.name()).definedBy(f.packages().toArray(String[]::new));
        }
        for (int i = 0; i < Floors.ORDER.size(); i++) {
            String[] above = Floors.ORDER.subList(i + 1, Floors.ORDER.size()).stream()
                    .map(Floors.Floor::name)
                    .toArray(String[]::new);
            a = above.length == 0
                    ? a.whereLayer(Floors.ORDER.get(i).name()).mayNotBeAccessedByAnyLayer()
                    : a.whereLayer(Floors.ORDER.get(i).name()).mayOnlyBeAccessedByLayers(above);
        }
        return a.ensureAllClassesAreContainedInArchitecture();
    }

    @Test
    void everyPackageUsesOnlyItsFloorAndThoseBelow() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.ntk4j");
        floors().check(classes);
    }
}
