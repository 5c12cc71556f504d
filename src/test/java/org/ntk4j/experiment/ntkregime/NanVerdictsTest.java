package org.ntk4j.experiment.ntkregime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.ntk4j.experiment.support.Verdicts.Outcome;
import org.ntk4j.experiment.support.Verdicts.Verdict;
import org.ntk4j.metrics.NeuralCollapse;

/** A NaN measurement is graded "not computed" with its reason, never reproduced, partly or not. */
class NanVerdictsTest {
    private static final double NAN = Double.NaN;

    @Test
    void blockStructureNeverGradesANanFeaturesKernel() {
        double[] e = {0, 10, 20};
        NtkBlockStructure.Run run = new NtkBlockStructure.Run(
                "resnet20-w8",
                "mnist",
                "mnist",
                e,
                new double[] {0.3, 0.5, 0.6},
                new double[] {0.3, 0.35, 0.4},
                new double[] {10, 9, 8},
                new double[] {5, 4, 4},
                new double[] {3, 2, 2},
                new double[] {NAN, NAN, NAN},
                new double[] {NAN, NAN, NAN},
                new double[] {NAN, NAN, NAN},
                new double[] {0.3, 0.35, 0.4},
                new double[] {NAN, NAN, NAN},
                new double[] {3, 3, 4},
                new double[] {NAN, NAN, NAN},
                0.1,
                0.9);
        List<Verdict> vs = NtkBlockStructure.verdicts(List.of(run));
        assertEquals(5, vs.size());
        // the Θ-only claims are graded on their finite numbers
        assertEquals(Outcome.REPRODUCED, vs.get(0).outcome(), vs.get(0).toString());
        // the claims that need Θ^h (alignment, κ order, n×n dominance) are not computed, and say why
        for (int k : new int[] {2, 3, 4}) {
            assertEquals(Outcome.NOT_COMPUTED, vs.get(k).outcome(), vs.get(k).toString());
            assertTrue(vs.get(k).reason().startsWith("not computed"), vs.get(k).reason());
            assertEquals("not computed", vs.get(k).verdict());
        }
    }

    private static NtkCollapse.Row row(double lr, double acc, double nc1, double align, double rel) {
        NeuralCollapse init = new NeuralCollapse(10, 10, 1, 0.1, 1, 0.5);
        NeuralCollapse end = new NeuralCollapse(nc1, nc1, 0.8, 0.1, 1, 0.1);
        double norm = Double.isNaN(align) ? NAN : 1.0;
        return new NtkCollapse.Row(
                "resnet20-w8", "mnist", lr, 0.1, acc, init, end, 1, norm, rel, align, align, new double[] {1, 0.5, 0.2
                });
    }

    @Test
    void collapseRanksOnlyComputedInvariantsAndReportsTheRest() {
        // three trained ResNet rates, the invariant E not computed (NaN κ of Θ^h) for any: the NC claims are graded,
        // the invariant claims are not computed (before: the pair vanished from the verdict table)
        List<NtkCollapse.Row> rows =
                List.of(row(0.002, 0.6, 1.7, NAN, NAN), row(0.006, 0.8, 0.8, NAN, NAN), row(0.02, 0.89, 0.4, NAN, NAN));
        List<Verdict> vs = NtkCollapse.verdicts(rows);
        assertEquals(4, vs.size(), vs.toString());
        assertEquals(Outcome.NOT_COMPUTED, vs.get(1).outcome(), vs.get(1).toString());
        assertEquals(Outcome.NOT_COMPUTED, vs.get(2).outcome(), vs.get(2).toString());
        assertTrue(
                vs.get(1).reason().contains("E not computed for 3 of 3 rates"),
                vs.get(1).reason());
        assertEquals(Outcome.REPRODUCED, vs.get(3).outcome(), vs.get(3).toString());
        // E computed for two of three: ranked over those two, the missing one named
        List<NtkCollapse.Row> some =
                List.of(row(0.002, 0.6, 1.7, 0.1, 1.2), row(0.006, 0.8, 0.8, NAN, NAN), row(0.02, 0.89, 0.4, 0.3, 0.9));
        List<Verdict> vs2 = NtkCollapse.verdicts(some);
        assertEquals(Outcome.REPRODUCED, vs2.get(1).outcome(), vs2.get(1).toString());
        assertTrue(vs2.get(1).measured().contains("over 2 rates"), vs2.get(1).measured());
        assertTrue(
                vs2.get(1).reason().contains("E not computed for 1 of 3 rates"),
                vs2.get(1).reason());
    }
}
