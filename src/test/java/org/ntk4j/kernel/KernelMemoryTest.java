package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.probe.NeuralCollapseProbe;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.train.Schedule;

/**
 * Repeated kernels and probes leave no arrays behind in the model's manager (resource counts stay
 * flat). Ops on parameters (a transposed weight, a batch-norm scale) attach their results to
 * the parameters' manager, so a forward pass outside a scope used to leave ~250 handles per ResNet kernel.
 */
class KernelMemoryTest {
    @Test
    void kernelsAndProbesKeepTheModelManagerFlat(@TempDir Path dir) {
        ModelSpec spec = ModelSpec.parse(
                "{\"arch\": \"resnet\", \"depth\": 6, \"channels\": [2, 3], \"input\": [1, 28, 28],"
                        + " \"outputs\": 10}",
                "test");
        LabelledSet data = Preprocess.balancedSample(Datasets.load("mnist-subset", Split.TEST), 2, 1);
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(spec, 0, m)) {
            NDArray x = m.randomUniform(0, 1, new Shape(6, 1, 28, 28));
            NDArray y = m.randomUniform(0, 1, new Shape(3, 1, 28, 28));
            NeuralCollapseProbe nc = new NeuralCollapseProbe(data, Schedule.parse("epochs"));
            Runnable all = () -> {
                Ntk.of(net).mode(Mode.FULL).perLayer().compute(x, y);
                Ntk.of(net).method(Method.JACOBIAN).compute(x);
                Ntk.of(net)
                        .method(Method.STRUCTURED)
                        .convPairs(true)
                        .parameterParts()
                        .memory(1 << 20)
                        .compute(x);
                nc.run(net, 0, 0);
            };
            all.run();
            int model = net.manager().getManagedArrays().size();
            int root = m.getManagedArrays().size();
            for (int i = 0; i < 5; i++) {
                all.run();
            }
            assertEquals(model, net.manager().getManagedArrays().size(), "arrays in the model's manager");
            assertEquals(root, m.getManagedArrays().size(), "arrays in the caller's manager");
        }
    }
}
