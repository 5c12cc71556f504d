package org.ntk4j.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Datasets;
import org.ntk4j.data.Preprocess;
import org.ntk4j.data.Split;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.ModelSpec;

/**
 * The NTK probe's motion metrics: at initialisation nothing has moved; after the weights change the
 * change, distance and velocity follow their definitions on the kernels the probe saved; and a probe
 * created afresh on the same run folder (a resumed run) reads its first and latest kernels back and
 * logs exactly what the uninterrupted probe logged.
 */
class NtkProbeTest {
    static void perturb(Network net, double factor) {
        Param p = net.trainableParams().get(0);
        p.set(p.value().mul(factor));
    }

    @Test
    void changeAndVelocityContinueAcrossAResume(@TempDir Path dir) {
        Dataset probe = Preprocess.balancedSample(Datasets.load("mnist-subset", Split.TEST), 2, 7);
        try (NDManager m = NDManager.newBaseManager();
                Network net = Network.build(ModelSpec.resolve("mlp-quickstart"), 0, m)) {
            RunFolder run = new RunFolder(dir);
            NtkProbe live = new NtkProbe(probe, run);
            Map<String, Object> r0 = live.run(net, 0, 0);
            assertEquals(0.0, (double) r0.get("relative_change_from_init"), 0);
            assertEquals(0.0, (double) r0.get("kernel_distance_from_init"), 0);
            assertFalse(r0.containsKey("kernel_velocity"), "no velocity before a second kernel");
            double rank = (double) r0.get("effective_rank");
            assertTrue(rank >= 1 && rank <= probe.size(), "effective rank in [1, n]: " + rank);
            assertEquals(Math.min(NtkProbe.EIGENVALUES, probe.size()), ((double[]) r0.get("eigenvalues")).length);

            perturb(net, 1.3);
            Map<String, Object> r10 = live.run(net, 10, 0);
            double moved = (double) r10.get("relative_change_from_init");
            assertTrue(moved > 0.01, "scaling the first layer by 1.3 moves the kernel: " + moved);
            assertEquals((double) r10.get("kernel_distance_from_init") / 10, (double) r10.get("kernel_velocity"), 1e-15,
                    "velocity since the previous probe = distance / steps when the previous probe is the first");

            perturb(net, 0.8);
            Map<String, Object> r20 = live.run(net, 20, 1);

            NtkProbe resumed = new NtkProbe(probe, run);
            Map<String, Object> s20 = resumed.run(net, 20, 1);
            for (String key : new String[] {"relative_change_from_init", "kernel_distance_from_init", "kernel_velocity"}) {
                assertEquals((double) r20.get(key), (double) s20.get(key), 1e-12 * Math.abs((double) r20.get(key)), key);
            }
        }
    }
}
