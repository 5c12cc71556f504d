package org.ntk4j.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.types.DataType;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.ntk4j.OptionException;
import org.ntk4j.cli.Main;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Mode;
import org.ntk4j.kernel.NtkOptions;

/**
 * The kernel request: its builder's defaults and checks, a settings key that names the setting as the builder does
 * (and the command line renders as its option), a round trip through {@code toBuilder} that keeps engine options
 * the builder has no setter for.
 */
class KernelRequestTest {
    private static KernelRequest.Builder minimal() {
        return KernelRequest.builder()
                .model("mlp-quickstart")
                .dataset("mnist-subset")
                .n(10);
    }

    @Test
    void defaultsAreTheEnginesAndFloat32() {
        KernelRequest r = minimal().build();
        assertEquals(Mode.TRACE, r.options().mode());
        assertEquals(Method.AUTO, r.options().method());
        assertEquals(DataType.FLOAT32, r.dtype());
        assertEquals(KernelRequest.DEFAULT_MEMORY, r.options().memoryBytes());
        assertEquals("sum", r.normalisation());
        assertEquals(0, r.samples().test());
        assertNull(r.weights());
        assertNull(r.options().tile());
    }

    @Test
    void float64AndMeanNormalisationAreWhatIsApplied() {
        KernelRequest r = minimal().dtype(DataType.FLOAT64).meanNormalised(true).build();
        assertTrue(r.options().float64());
        assertEquals(DataType.FLOAT64, r.dtype());
        assertEquals("mean", r.normalisation());
        // a full kernel is never divided by O: the request says what is applied
        assertEquals("sum", r.toBuilder().mode(Mode.FULL).build().normalisation());
    }

    @Test
    void toBuilderKeepsEveryEngineOption() {
        NtkOptions o = NtkOptions.builder()
                .mode(Mode.DIAGONAL)
                .parameterParts(true)
                .layerWeights(Map.of("dense1", 2.0))
                .convPairs(true)
                .tile(8)
                .build();
        KernelRequest r =
                minimal().options(o).perClass(3).pad(2).test(5).seed(7).build();
        KernelRequest back = r.toBuilder().build();
        assertEquals(r, back);
        assertTrue(back.options().parts());
        assertEquals(Map.of("dense1", 2.0), back.options().layerWeights());
        assertEquals(Boolean.TRUE, back.options().convPairs());
        assertEquals(new Samples("mnist-subset", 10, 3, 5, 2), back.samples());
    }

    @Test
    void badSettingsAreNamedByTheirKeys() {
        String[][] cases = {
            {"n", "n must be >= 1 (got 0)"},
            {"perClass", "perClass must be >= 1 (got 0)"},
            {"test", "test must be >= 0 (got -1)"},
            {"pad", "pad must be >= 0 (got -3)"},
            {"tile", "tile must be >= 1 (got 0)"},
            {"memory", "memory must be a size like 512m or 4g (got 0)"},
            {"dtype", "dtype must be float32 or float64 (got float16)"},
        };
        KernelRequest.Builder[] builders = {
            minimal().n(0),
            minimal().perClass(0),
            minimal().test(-1),
            minimal().pad(-3),
            minimal().tile(0),
            minimal().memory(0),
            minimal().dtype(DataType.FLOAT16),
        };
        for (int i = 0; i < cases.length; i++) {
            KernelRequest.Builder b = builders[i];
            OptionException e = assertThrows(OptionException.class, b::build);
            assertEquals(java.util.List.of(cases[i][0]), e.keys());
            assertEquals(cases[i][1], e.getMessage());
        }
        OptionException e = assertThrows(
                OptionException.class,
                () -> KernelRequest.builder().dataset("d").n(1).build());
        assertEquals(java.util.List.of("model", "dataset", "mode", "method"), e.keys());
    }

    @Test
    void theCommandLineNamesTheSameSettingsAsOptions() {
        java.io.StringWriter err = new java.io.StringWriter();
        var cl = Main.commandLine();
        cl.setErr(new java.io.PrintWriter(err));
        int status = cl.execute(
                "kernel",
                "--model",
                "mlp-quickstart",
                "--per-class",
                "0",
                "--out",
                Path.of("x.npz").toString());
        assertEquals(2, status);
        assertEquals(
                "ntk4j: error: --per-class must be >= 1 (got 0)", err.toString().strip());
    }
}
