package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;
import org.ntk4j.spec.DatasetSpec;

/** Synthetic regression sets from specs: the whitening and teacher contracts, splits, subsets and errors. */
class SyntheticDatasetsTest {
    @Test
    void whitenedTeacherSetIsWhitenedAndLabelledByTheTeacher() {
        DatasetSpec spec = DatasetSpec.resolve("whitened-linear-d30");
        LabelledSet train = Datasets.load("whitened-linear-d30", Split.TRAIN);
        LabelledSet test = Datasets.load("whitened-linear-d30", Split.TEST);
        assertTrue(train.isRegression());
        assertEquals(spec.train(), train.size());
        assertEquals(spec.test(), test.size());
        assertEquals(1, train.targetOutputs());
        assertArrayEquals(new int[] {30}, train.sampleShape());
        int p = train.size();
        int d = 30;
        float[] x = train.features();
        // XᵀX/P = I (P ≥ D): float32 storage, so 1e-5
        for (int a = 0; a < d; a++) {
            for (int b = 0; b < d; b++) {
                double s = 0;
                for (int i = 0; i < p; i++) {
                    s += (double) x[i * d + a] * x[i * d + b];
                }
                assertEquals(a == b ? 1.0 : 0.0, s / p, 1e-5, "Σ[" + a + "][" + b + "]");
            }
        }
        // y = s·Xβ with ‖β‖ = 1: the least-squares β from (X, y) has unit norm, and mean y² = s²‖β‖² = 1
        double y2 = 0;
        for (float v : train.targets()) {
            y2 += v * v;
        }
        assertEquals(1.0, y2 / p, 1e-5);
        LabelledSet again = Datasets.load("whitened-linear-d30", Split.TRAIN);
        assertArrayEquals(train.features(), again.features(), "a pure function of the spec");
        LabelledSet sub = Preprocess.balancedSample(train, 10, 3);
        assertEquals(10, sub.size());
        assertEquals(10, sub.targets().length, "subsets keep their targets");
    }

    @Test
    void otherKindsHaveTheirShapes() {
        LabelledSet a = Datasets.load("anisotropic-linear-d50", Split.TEST);
        assertEquals(200, a.size());
        assertEquals(50, a.featureDim());
        DatasetSpec m = DatasetSpec.parse(
                "{\"kind\": \"multi-output-teacher\", \"d\": 8, \"train\": 20, \"test\": 5,"
                        + " \"singularValues\": [3, 2, 1]}",
                "test");
        LabelledSet mt = SyntheticDatasets.load(m, Split.TEST);
        assertEquals(3, mt.targetOutputs());
        assertEquals(15, mt.targets().length);
        LabelledSet c = Datasets.load("chain-monomial-d20", Split.TRAIN);
        assertEquals(1000, c.size());
        assertFalse(Datasets.load("mnist-subset", Split.TEST).isRegression());
    }

    @Test
    void badSpecsAndNamesAreNamed() {
        UserException e = assertThrows(
                UserException.class,
                () -> DatasetSpec.parse("{\"kind\": \"teacher\", \"d\": 8, \"train\": 20}", "x.json"));
        assertTrue(e.getMessage().contains("field 'kind'"), e.getMessage());
        e = assertThrows(
                UserException.class,
                () -> DatasetSpec.parse("{\"kind\": \"multi-output-teacher\", \"d\": 8, \"train\": 20}", "x.json"));
        assertTrue(e.getMessage().contains("singularValues"), e.getMessage());
        e = assertThrows(UserException.class, () -> Datasets.load("whitened-linear-d31", Split.TRAIN));
        assertTrue(e.getMessage().contains("whitened-linear-d30"), "lists the synthetic specs: " + e.getMessage());
    }
}
