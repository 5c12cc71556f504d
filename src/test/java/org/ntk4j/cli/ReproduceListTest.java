package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.ntk4j.experiment.Studies;
import org.ntk4j.experiment.support.Study;

/** {@code ntk4j reproduce --list}: every study once, with its seed paper, figures and claim. */
class ReproduceListTest {
    @Test
    void listsEveryStudyWithItsPaper() {
        CliTest.Run r = withStdout("reproduce", "--list");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        for (Study s : Studies.all()) {
            List<String> mine = lines.stream()
                    .filter(l -> l.split("\\s+").length > 2 && l.split("\\s+")[1].equals(s.name()))
                    .toList();
            assertEquals(1, mine.size(), s.name() + " listed once");
            assertTrue(mine.get(0).startsWith(s.paper().seed()), mine.get(0));
            assertTrue(mine.get(0).contains(s.figures()) && mine.get(0).contains(s.claim()), mine.get(0));
        }
        Set<String> names = Studies.all().stream().map(Study::name).collect(Collectors.toSet());
        assertEquals(Studies.all().size(), names.size(), "no duplicate names");
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
        assertTrue(r.out().contains(names.size() + " studies of the five papers"), r.out());
        for (String n :
                List.of("transfer-error", "sgd-alignment", "ntk-collapse-flow", "dispersion-profiles", "early-cnfc")) {
            assertTrue(names.contains(n), n);
        }
        assertTrue(r.out().contains("Not covered by any study (" + Studies.NOT_COVERED.size() + ")"), r.out());
        for (Studies.Gap g : Studies.NOT_COVERED) {
            assertTrue(r.out().contains(g.claim()), g.claim());
        }
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
        assertFalse(r.out().contains("studies of the five papers"));
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
