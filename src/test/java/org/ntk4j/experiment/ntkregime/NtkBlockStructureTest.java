package org.ntk4j.experiment.ntkregime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.experiment.support.Scale;

/**
 * Label awareness and block structure during training at quick settings (ReLU MLP of depth 3, width 16, on 30
 * images per class of the bundled MNIST subset, 6 epochs; kernels on 3 per class).
 */
class NtkBlockStructureTest {
    @Test
    void ntkBecomesLabelAwareDuringTraining(@TempDir Path dir) throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            NtkBlockStructure.Result r = NtkBlockStructure.run(NtkBlockStructure.Settings.of(Scale.QUICK), dir, m);
            assertEquals(1, r.runs().size());
            NtkBlockStructure.Run w = r.runs().get(0);
            int last = w.epochs().length - 1;
            assertEquals(4, w.epochs().length);
            for (int k = 0; k <= last; k++) {
                // balanced classes: γ_c/γ_d and γ_n/γ_d of the FULL kernel equal eq. (23)'s Θ̄_c/Θ̄_d and Θ̄_n/Θ̄_d of
                // the traced one (both are plain means over the same entries; BlockStructure's javadoc)
                assertEquals(w.cOverD()[k], w.gammaC()[k] / w.gammaD()[k], 1e-9);
                assertEquals(w.nOverD()[k], w.gammaN()[k] / w.gammaD()[k], 1e-9);
                assertTrue(w.alignment()[k] > 0 && w.alignment()[k] <= 1);
            }
            // measured (deterministic seeds): Θ̄c/Θ̄d 0.303 → 0.473 (Fig. 4: the within-class ratio rises), and the
            // end-of-training order γ 5.63 > 2.66 > 2.11, κ 3.34 > 1.18 > 0.85 of Def. 3.1
            assertTrue(w.cOverD()[last] > w.cOverD()[0] + 0.1, "Θ̄c/Θ̄d rises");
            assertTrue(w.gammaD()[last] > w.gammaC()[last] && w.gammaC()[last] > w.gammaN()[last]);
            assertTrue(w.kappaD()[last] > w.kappaC()[last] && w.kappaC()[last] > w.kappaN()[last]);
            // the diagonal output blocks dominate the C×C norm matrix (measured 2.8×), and Θ^h's n×n (12×)
            assertTrue(w.outputDominance()[last] > 1.5 && w.featureDominance()[last] > 1.5);
            assertEquals(5, r.verdicts().size());
            assertTrue(Files.size(dir.resolve("mlp-mnist-subset-output-norms-end.png")) > 1000);
            assertTrue(Files.readString(dir.resolve("report.html")).contains("Verdict"));
        }
    }

    /**
     * A convolutional net through the same code: ResNet-20 at half width ({@code resnet20-w8}: BN, projection
     * shortcuts, stage widths 8/16/32) on 6 images per class of the bundled MNIST subset, 2 epochs (6 steps; too few to
     * learn, so only what holds at every probe is asserted); kernels on 2 per class.
     */
    @Test
    void convNetKernelHasClassBlocks(@TempDir Path dir) throws Exception {
        NtkBlockStructure.Settings s = NtkBlockStructureSettingsBuilder.builder()
                .pairs(new CollapseSetup.Pair[] {
                    new CollapseSetup.Pair("resnet20-w8", "mnist-subset", new double[] {0.02}, 2, 6)
                })
                .trainPerClass(30)
                .kernelPerClass(2)
                .mlpDepth(3)
                .mlpWidth(16)
                .lr(0.05)
                .batch(20)
                .epochs(6)
                .probeEpochs(new int[] {0, 1, 3, 6})
                .seed(0)
                .build();
        try (NDManager m = NDManager.newBaseManager()) {
            NtkBlockStructure.Result r = NtkBlockStructure.run(s, dir, m);
            assertEquals(1, r.runs().size());
            NtkBlockStructure.Run w = r.runs().get(0);
            // the pair's own 2 epochs replace the grid's 6: probes at 0, 1 and its last epoch
            assertArrayEquals(new double[] {0, 1, 2}, w.epochs());
            assertTrue(Double.isFinite(w.trainLoss()));
            for (int k = 0; k < w.epochs().length; k++) {
                // FULL-kernel block means against the traced kernel's eq. (23) ratios (balanced classes)
                assertEquals(w.cOverD()[k], w.gammaC()[k] / w.gammaD()[k], 1e-9);
                assertEquals(w.nOverD()[k], w.gammaN()[k] / w.gammaD()[k], 1e-9);
                // measured γ 9.2e3 > 8.7e3 > 8.4e3 at init, κ 1.18e3 > 1.12e3 > 1.07e3 (Def. 3.1 order)
                assertTrue(w.gammaD()[k] > w.gammaC()[k] && w.gammaC()[k] > w.gammaN()[k], "γ order at " + k);
                assertTrue(w.kappaD()[k] > w.kappaC()[k] && w.kappaC()[k] > w.kappaN()[k], "κ order at " + k);
                // the C×C output-block norms: the diagonal Θ_kk dominate (measured 3.7× at the end)
                assertTrue(w.outputDominance()[k] > 2, "dominance at " + k + ": " + w.outputDominance()[k]);
            }
            // at init the conv NTK is nearly constant (Θ̄n/Θ̄d 0.91: not label-aware) and so aligned with YYᵀ like the
            // all-ones kernel: ⟨J, YYᵀ⟩/(‖J‖‖YYᵀ‖) = N·m/(N·√(N·m)) = 1/√C (balanced, m per class); measured 0.321
            assertTrue(w.nOverD()[0] > 0.85, "Θ̄n/Θ̄d at init " + w.nOverD()[0]);
            assertEquals(1 / Math.sqrt(10), w.alignment()[0], 0.03);
            assertEquals(5, r.verdicts().size());
            assertTrue(Files.size(dir.resolve("resnet20-w8-mnist-subset-output-norms-end.png")) > 1000);
        }
    }
}
