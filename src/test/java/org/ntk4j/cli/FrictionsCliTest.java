package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.io.Safetensors;
import org.ntk4j.model.Models;
import org.ntk4j.spec.ModelSpec;

/**
 * The command line as users met it: {@code models} counts parameters from the spec and {@code models} and
 * {@code datasets} print aligned columns; {@code kernel --help} shows its required options as required and
 * {@code train --help} each default once; {@code train --per-class} is {@code kernel --per-class}'s meaning, the old
 * {@code --n} still works with a warning; {@code train --probe} prints what the probes found; {@code regress} names
 * its folder after the kernel file without {@code .npz}; {@code export} writes safetensors and NPZ.
 */
class FrictionsCliTest {
    /** Runs the command, capturing what it prints on System.out and System.err too. */
    static String[] capture(Supplier<CliTest.Run> command) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        CliTest.Run r;
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            r = command.get();
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        assertEquals(0, r.code(), r.err() + e.toString(StandardCharsets.UTF_8));
        return new String[] {r.out() + o.toString(StandardCharsets.UTF_8), r.err() + e.toString(StandardCharsets.UTF_8)
        };
    }

    @Test
    void modelsAndDatasetsPrintAlignedTables() {
        String models = CliTest.run("models").out();
        List<String> lines = models.strip().lines().toList();
        assertEquals(ModelSpec.available().size() + 1, lines.size(), models);
        int end = lines.get(0).length(); // PARAMETERS, right-aligned: every row ends where the header does
        for (String l : lines) {
            assertEquals(end, l.length(), "aligned: '" + l + "'");
        }
        String vgg = lines.stream()
                .filter(l -> l.startsWith("vgg19-bn "))
                .findFirst()
                .orElseThrow();
        assertTrue(vgg.endsWith("20,086,692"), vgg);
        assertEquals(20_086_692, Models.parameterCount(ModelSpec.resolve("vgg19-bn")));

        List<String> ds = CliTest.run("datasets").out().strip().lines().toList();
        int status = ds.get(0).indexOf("STATUS");
        for (String l : ds.subList(1, ds.size())) {
            assertTrue(l.length() > status && l.charAt(status - 1) == ' ' && l.charAt(status) != ' ', "aligned: " + l);
        }
    }

    @Test
    void helpShowsRequiredOptionsAndEachDefaultOnce() {
        String kernel = CliTest.run("kernel", "--help").out();
        assertTrue(kernel.contains("ntk4j kernel --model=SPEC|NAME --out=K.npz [OPTIONS]"), kernel);
        assertFalse(kernel.contains("[--model") || kernel.contains("[--out"), "required, not in brackets: " + kernel);
        String train = CliTest.run("train", "--help").out();
        assertFalse(train.contains("Default:"), "defaults once, in the descriptions: " + train);
        assertTrue(train.contains("(default 10)"), train);
        assertTrue(train.contains("--per-class=N"), train);
    }

    @Test
    void trainPerClassAndTheOldNAndTheProbeSummary(@TempDir Path dir) {
        String[] a = capture(() -> CliTest.run(
                "train",
                "--model",
                "mlp-quickstart",
                "--per-class",
                "3",
                "--test",
                "2",
                "--epochs",
                "1",
                "--probe",
                "ntk,nc,nfa",
                "--probe-set",
                "2",
                "--out",
                dir.resolve("a").toString()));
        assertTrue(a[0].contains("NTK probe (steps 0..1): NTK–target alignment "), a[0]);
        assertTrue(a[0].contains("neural collapse probe: NC1 ") && a[0].contains("feature ansatz probe: NFC dense1 "));
        assertTrue(a[1].contains("30 train, 20 test"), "3 per class: " + a[1]);
        String[] b = capture(() -> CliTest.run(
                "train",
                "--model",
                "mlp-quickstart",
                "--n",
                "3",
                "--test",
                "2",
                "--epochs",
                "1",
                "--out",
                dir.resolve("b").toString()));
        assertTrue(b[1].contains("train --n is deprecated") && b[1].contains("--per-class 3"), b[1]);
        assertTrue(b[1].contains("30 train, 20 test"), "--n still means per class: " + b[1]);
        CliTest.assertOneLineError(
                CliTest.run(
                        "train",
                        "--model",
                        "mlp-quickstart",
                        "--n",
                        "3",
                        "--per-class",
                        "4",
                        "--out",
                        dir.resolve("c").toString()),
                "disagree");
    }

    @Test
    void regressFolderAndExport(@TempDir Path dir) throws Exception {
        Path k = dir.resolve("K.npz");
        assertEquals(
                0,
                CliTest.run("kernel", "--model", "mlp-quickstart", "--n", "20", "--test", "5", "--out", k.toString())
                        .code());
        capture(() -> CliTest.run("regress", "--kernel", k.toString()));
        assertTrue(Files.isRegularFile(dir.resolve("K-regress/results.json")), "K.npz -> K-regress");

        Path run = dir.resolve("run");
        capture(() -> CliTest.run(
                "train", "--model", "mlp-quickstart", "--per-class", "2", "--epochs", "1", "--out", run.toString()));
        Path st = dir.resolve("w.safetensors");
        capture(() -> CliTest.run("export", run.toString(), "--out", st.toString()));
        Path npz = dir.resolve("w.npz");
        capture(() -> CliTest.run("export", st.toString(), "--model", "mlp-quickstart", "--out", npz.toString()));
        try (NDManager m = NDManager.newBaseManager()) {
            Map<String, NDArray> back = Safetensors.read(st, m);
            assertEquals(
                    List.of(
                            "dense1.weight",
                            "dense1.bias",
                            "dense2.weight",
                            "dense2.bias",
                            "dense3.weight",
                            "dense3.bias"),
                    List.copyOf(back.keySet()));
            assertTrue(Safetensors.metadata(st).get("ntk4j.spec").contains("mlp-quickstart"));
            Map<String, NDArray> original = org.ntk4j.io.Weights.read(run.resolve("weights.npz"), m).stream()
                    .collect(java.util.stream.Collectors.toMap(NDArray::getName, x -> x));
            Map<String, NDArray> again = org.ntk4j.io.Weights.read(npz, m).stream()
                    .collect(java.util.stream.Collectors.toMap(NDArray::getName, x -> x));
            for (String name : back.keySet()) {
                assertArrayEquals(
                        original.get(name).toFloatArray(), back.get(name).toFloatArray(), 0f, name);
                assertArrayEquals(
                        original.get(name).toFloatArray(), again.get(name).toFloatArray(), 0f, name);
            }
        }
        CliTest.assertOneLineError(
                CliTest.run(
                        "export", run.toString(), "--out", dir.resolve("w.bin").toString()),
                ".safetensors or .npz");
        CliTest.assertOneLineError(
                CliTest.run(
                        "export", st.toString(), "--out", dir.resolve("x.npz").toString()),
                "--model");
    }
}
