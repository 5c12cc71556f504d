package org.ntk4j.experiment.ntkregime;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import org.junit.jupiter.api.Test;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * The FULL Θ and Θ^h of the half-width ResNet-20 on 20 images are finite. With libtorch's oneDNN convolutions the
 * structured per-output probe pass returned NaN rows here (70-210 of the 640 (sample, feature) rows of Θ^h, differing
 * from run to run; also Θ of the whole net in one run): oneDNN's batched input gradients of its 8-channel convolutions
 * are wrong ({@link org.ntk4j.natives.OneDnn}, which now turns it off).
 */
class FeaturesKernelResNetTest {
    @Test
    void featuresKernelOfAResNetIsFinite() {
        CollapseSetup.Data d = CollapseSetup.load(Datasets.MNIST_SUBSET, false, 10, 2, 1);
        // 2 per class, 10 classes: the structured factors gave 70-210 of the 640 (sample, feature) rows NaN here
        LabelledSet set = CollapseSetup.kernelSet(d.train(), 2, 3);
        ModelSpec spec = CollapseSetup.model("resnet20-w8", d.train(), 0, 0);
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(spec, 0, m, DataType.FLOAT32)) {
            CollapseSetup.Kernels k = CollapseSetup.kernels(net, set);
            double[] kappa = {
                k.features().gammaD(), k.features().gammaC(), k.features().gammaN()
            };
            for (double v : kappa) {
                assertTrue(Double.isFinite(v) && v > 0, "κ of Θ^h: " + java.util.Arrays.toString(kappa));
            }
            assertTrue(Double.isFinite(k.featuresAlignment()), "A(Θ^h, YYᵀ) " + k.featuresAlignment());
            assertTrue(
                    Double.isFinite(k.theta().gammaD()), "γ_d of Θ " + k.theta().gammaD());
        }
    }
}
