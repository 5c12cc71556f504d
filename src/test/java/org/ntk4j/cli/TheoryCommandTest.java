package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The theory sub-commands run, write their CSV/PNG files, and turn user mistakes into exit status 2. */
class TheoryCommandTest {

    static int run(String... args) {
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(new StringWriter()));
        return cl.execute(args);
    }

    @Test
    void everySubcommandWritesItsFiles(@TempDir Path dir) throws java.io.IOException {
        String out = dir.toString();
        assertEquals(0, run("theory", "ntk", "--depth", "3", "--angles", "4", "--out", out));
        assertEquals(
                0,
                run(
                        "theory",
                        "dispersion",
                        "--width",
                        "50",
                        "--depths",
                        "2,5",
                        "--sigma-w2",
                        "1,2",
                        "--limit",
                        "--out",
                        out));
        assertEquals(0, run("theory", "equilibrium", "--depths", "10,20", "--out", out));
        assertEquals(0, run("theory", "linear", "--points", "4", "--out", out));
        assertEquals(0, run("theory", "solvable", "--golden", "--points", "4", "--out", out));
        assertEquals(0, run("theory", "phase", "--out", out));
        assertEquals(0, run("theory", "signal", "--activation", "tanh", "--depth", "5", "--out", out));
        assertEquals(
                0, run("theory", "dispersion", "--width", "100", "--depths", "10", "--sigma-w2", "1", "--rho", "0.5"));
        for (String f : new String[] {"ntk", "signal", "dispersion", "equilibrium", "linear", "solvable"}) {
            assertTrue(Files.isRegularFile(dir.resolve(f + ".csv")), f + ".csv");
            assertTrue(Files.isRegularFile(dir.resolve(f + ".png")), f + ".png");
        }
        assertTrue(Files.isRegularFile(dir.resolve("phase.csv")));
        try (var s = Files.list(dir)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().endsWith(".tmp")), "no temporary files left");
        }
    }

    @Test
    void kernelMatricesAndRegressionFromCsv(@TempDir Path dir) throws java.io.IOException {
        Path x = dir.resolve("x.csv");
        Path xt = dir.resolve("xt.csv");
        Path y = dir.resolve("y.csv");
        Files.writeString(x, "a,b\n1,0\n0,1\n1,1\n");
        Files.writeString(xt, "0.5,0.5\n");
        Files.writeString(y, "1\n-1\n0.5\n");
        Path out = dir.resolve("out");
        assertEquals(
                0,
                run(
                        "theory",
                        "ntk",
                        "--inputs",
                        x.toString(),
                        "--test-inputs",
                        xt.toString(),
                        "--targets",
                        y.toString(),
                        "--out",
                        out.toString()));
        for (String f : new String[] {"nngp_train", "ntk_train", "ntk_test_train", "predictions"}) {
            assertTrue(Files.isRegularFile(out.resolve(f + ".csv")), f);
        }
        assertEquals(4, Files.readAllLines(out.resolve("ntk_train.csv")).size());
        assertEquals(
                2,
                run(
                        "theory",
                        "ntk",
                        "--inputs",
                        x.toString(),
                        "--test-inputs",
                        xt.toString(),
                        "--targets",
                        xt.toString()));
        assertEquals(
                2, run("theory", "ntk", "--inputs", dir.resolve("missing.csv").toString()));
    }

    @Test
    void userMistakesExitWithStatus2() {
        assertEquals(2, run("theory", "ntk", "--activation", "softplus"));
        assertEquals(2, run("theory", "ntk", "--parameterization", "mean-field"));
        assertEquals(2, run("theory", "linear", "--c0", "5"));
    }
}
