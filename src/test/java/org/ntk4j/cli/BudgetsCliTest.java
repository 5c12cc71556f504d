package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.util.MachineBudget;

/**
 * Budgets against this machine, from the command line: a --memory above its memory is refused before any work (t is
 * a unit), --threads above its cores is lowered to them with a warning.
 */
class BudgetsCliTest {
    static String[] kernel(Path out, String... more) {
        String[] base = {"kernel", "--model", "mlp-quickstart", "--n", "2", "--out", out.toString()};
        String[] a = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, a, base.length, more.length);
        return a;
    }

    @Test
    void aMemoryBudgetAboveThisMachineIsRefusedBeforeAnyWork(@TempDir Path dir) {
        long gib = MachineBudget.memory().limit() >> 30;
        String tooMuch = (gib + 1) * 4 + "g";
        CliTest.Run r = CliTest.run(kernel(dir.resolve("K.npz"), "--memory", tooMuch));
        CliTest.assertOneLineError(r, "is more than this machine can give");
        assertFalse(Files.exists(dir.resolve("K.npz")));
        // t is a unit: 1t is a size (refused here only when the machine has less)
        CliTest.Run t = CliTest.run(kernel(dir.resolve("T.npz"), "--memory", "1t"));
        if (gib < 1024) {
            CliTest.assertOneLineError(t, "--memory 1.00 TiB is more than this machine can give");
        } else {
            assertEquals(0, t.code(), t.err());
        }
        CliTest.assertOneLineError(CliTest.run(kernel(dir.resolve("U.npz"), "--memory", "1x")), "like 512m, 4g or 1t");
        // a dry run plans for other machines: its budget is not this machine's
        CliTest.Run dry = CliTest.run(
                "kernel",
                "--model",
                "mlp-quickstart",
                "--n",
                "100",
                "--dry-run",
                "--memory",
                tooMuch,
                "--out",
                dir.resolve("store").toString());
        assertEquals(0, dry.code(), dry.err());
    }

    @Test
    void threadsAboveTheCoresAreLoweredToThemWithAWarning(@TempDir Path dir) throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        CliTest.Run r = ResumeEdgeTest.withStderr(kernel(dir.resolve("K.npz"), "--threads", "999"));
        assertEquals(0, r.code(), r.err());
        assertTrue(
                r.err()
                        .contains("ntk4j: warning: --threads 999 is more than the " + cores + " core"
                                + (cores == 1 ? "" : "s") + " this process may use; using " + cores),
                r.err());
        assertTrue(Files.readString(dir.resolve("K.json")).contains("\"dtype\""));
    }
}
