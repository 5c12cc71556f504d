package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --probe ntk --approx pntk} end to end: every probe record names the pNTK, the first one carries its
 * error against the traced kernel / O, args.json keeps the choice for a resume (which refuses another), the report and
 * the printed summary say which kernel it is; the combinations that make no sense are one line with exit 2 and
 * nothing written.
 */
class ProbeApproxCliTest {
    private static List<JsonObject> probes(Path run) throws Exception {
        return Files.readAllLines(run.resolve("metrics.jsonl")).stream()
                .map(l -> JsonParser.parseString(l).getAsJsonObject())
                .filter(o -> o.has("probe") && "ntk".equals(o.get("probe").getAsString()))
                .toList();
    }

    private static String[] train(Path out, String... more) {
        String[] base = {
            "train", "--model", "mlp-quickstart", "--per-class", "10", "--epochs", "1", "--out", out.toString()
        };
        String[] a = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, a, base.length, more.length);
        return a;
    }

    @Test
    void pntkProbeEndToEndAndResume(@TempDir Path dir) throws Exception {
        Path a = dir.resolve("a");
        CliTest.Run r = CliTest.run(train(a, "--probe", "ntk", "--probe-set", "2", "--approx", "pntk"));
        assertEquals(0, r.code(), r.err());
        String summary = String.join("\n", org.ntk4j.probe.ProbeReports.summary(new org.ntk4j.report.RunFolder(a)));
        assertTrue(summary.contains("NTK probe (pNTK, steps 0..") && summary.contains("error against"), summary);
        JsonObject args =
                JsonParser.parseString(Files.readString(a.resolve("args.json"))).getAsJsonObject();
        assertEquals("pntk", args.get("approx").getAsString());
        List<JsonObject> p = probes(a);
        assertEquals(2, p.size(), "init and epoch 1");
        for (JsonObject o : p) {
            assertEquals("pntk", o.get("kernel").getAsString());
            assertTrue(o.has("traced_centred_alignment.dense1") && o.has("effective_rank"), o.toString());
            assertTrue(o.get("layer_cka_skipped").getAsString().contains("pNTK"), o.toString());
        }
        double err = p.get(0).get("approx_error.relative_frobenius_error").getAsDouble();
        assertTrue(err > 0 && err < 1, "pNTK error against traced / O: " + err);
        assertFalse(p.get(1).has("approx_error.relative_frobenius_error"), "measured at the first probe only");
        String html = Files.readString(a.resolve("report.html"));
        assertTrue(html.contains("pNTK = (1/O) J_Σ J_Σᵀ"), "the report names the kernel");

        CliTest.assertOneLineError(CliTest.run("train", "--resume", a.toString(), "--approx", "sketch:4"), "--approx");
        r = CliTest.run("train", "--resume", a.toString(), "--epochs", "2", "--approx", "pntk");
        assertEquals(0, r.code(), r.err());
        p = probes(a);
        assertEquals(3, p.size());
        assertEquals("pntk", p.get(2).get("kernel").getAsString(), "a resume keeps the pNTK");

        Path b = dir.resolve("b");
        r = CliTest.run(train(b, "--probe", "ntk", "--probe-set", "2", "--layer-cka-max", "0"));
        assertEquals(0, r.code(), r.err());
        assertEquals("traced", probes(b).get(0).get("kernel").getAsString());
        UserMistakesTest.assertInWords(
                CliTest.run("train", "--resume", b.toString(), "--approx", "pntk"), "--approx pntk (run: traced)");
    }

    @Test
    void combinationsThatMakeNoSenseAreOneLineAndWriteNothing(@TempDir Path dir) {
        String[][] cases = {
            {"--approx", "pntk"},
            {"--approx applies with --probe"},
            {"--probe", "nc", "--approx", "pntk"},
            {"add ntk to --probe"},
            {"--probe", "ntk", "--approx", "sketch:8"},
            {"pntk only"},
            {"--probe", "ntk", "--approx", "nystrom:4:leverage"},
            {"pntk only"},
            {"--probe", "ntk", "--approx", "pntk", "--layer-cka-max", "100"},
            {"--layer-cka-max 100 with --approx pntk"},
            {"--probe", "ntk", "--approx", "pntk:3"},
            {"--approx 'pntk:3' is not one of"},
        };
        for (int i = 0; i < cases.length; i += 2) {
            Path out = dir.resolve("c" + i);
            UserMistakesTest.assertInWords(CliTest.run(train(out, cases[i])), cases[i + 1][0]);
            assertFalse(Files.exists(out), "nothing written for " + String.join(" ", cases[i]));
        }
    }
}
