package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.ntk4j.experiment.Studies;
import org.ntk4j.experiment.StudyCatalog;
import org.ntk4j.experiment.support.Study;

/** {@code ntk4j reproduce --list}: every catalogued study once, "built" exactly for those in Studies.all(). */
class ReproduceListTest {
    @Test
    void listsEveryStudyWithItsStatus() {
        CliTest.Run r = withStdout("reproduce", "--list");
        assertEquals(0, r.code(), r.err());
        Set<String> built = Studies.all().stream().map(Study::name).collect(Collectors.toSet());
        List<String> lines = r.out().lines().toList();
        for (StudyCatalog.Entry e : StudyCatalog.ENTRIES) {
            List<String> mine = lines.stream()
                    .filter(l -> l.split("\\s+").length > 2 && l.split("\\s+")[1].equals(e.name()))
                    .toList();
            assertEquals(1, mine.size(), e.name() + " listed once");
            String status = built.contains(e.name()) ? "built" : "not yet";
            assertTrue(mine.get(0).contains(" " + status + " "), mine.get(0));
            assertTrue(mine.get(0).startsWith(e.seed()), mine.get(0));
        }
        // every built study is catalogued, and the four of seeds 001/003 and the studies are there
        Set<String> names =
                StudyCatalog.ENTRIES.stream().map(StudyCatalog.Entry::name).collect(Collectors.toSet());
        assertTrue(names.containsAll(built), "uncatalogued study in Studies.all()");
        assertEquals(StudyCatalog.ENTRIES.size(), names.size(), "no duplicate names");
        for (String n : List.of(
                "silent-alignment",
                "layerwise-lr",
                "deep-linear",
                "ntk-dispersion",
                "alignment-hierarchy",
                "equilibrium-depth",
                "target-correlation",
                "hessian-energy",
                "frozen-features",
                "lfm",
                "nfa-chain-monomial",
                "centred-nfc",
                "slo",
                "nfc-prediction",
                "dispersion-limits",
                "ntk-change-phase",
                "block-structure",
                "ntk-collapse",
                "solvable-dynamics",
                "init-scale",
                "phase-diagram",
                "relu-silent-alignment",
                "multiclass-anisotropic",
                "depth-sweep",
                "wrn-alignment")) {
            assertTrue(names.contains(n), n);
        }
        assertTrue(r.out().contains(built.size() + " of " + names.size() + " studies built"), r.out());
    }

    /** Runs the CLI with System.out captured (the command prints there, as the others do). */
    static CliTest.Run withStdout(String... args) {
        java.io.PrintStream old = System.out;
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        try {
            System.setOut(new java.io.PrintStream(buf, true, java.nio.charset.StandardCharsets.UTF_8));
            CliTest.Run r = CliTest.run(args);
            return new CliTest.Run(r.code(), r.out() + buf.toString(java.nio.charset.StandardCharsets.UTF_8), r.err());
        } finally {
            System.setOut(old);
        }
    }

    @Test
    void aStudyOrListIsRequired() {
        CliTest.Run r = withStdout("reproduce");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--list"), r.err());
        assertFalse(r.out().contains("studies built"));
    }

    @Test
    void helpListsEveryBuiltStudyWithItsSummary() {
        CliTest.Run r = withStdout("reproduce", "--help");
        assertEquals(0, r.code(), r.err());
        String help = r.out().replaceAll("\\s+", " ");
        for (Study s : Studies.all()) {
            assertTrue(help.contains(s.name() + ":"), s.name() + " missing from reproduce --help");
        }
        assertTrue(help.contains("--scale"), help);
    }

    @Test
    void badScaleIsOneLine() {
        CliTest.Run r = withStdout("reproduce", "silent-alignment", "--scale", "huge");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--scale 'huge'") && r.err().contains("quick, cpu, paper"), r.err());
        CliTest.Run both = withStdout("reproduce", "silent-alignment", "--quick", "--scale", "paper");
        assertEquals(2, both.code());
        assertTrue(both.err().contains("disagree"), both.err());
    }
}
