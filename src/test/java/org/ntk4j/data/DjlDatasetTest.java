package org.ntk4j.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Blocks;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.Batch;
import ai.djl.training.loss.Loss;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link DjlDataset} through a DJL {@link Trainer}: every batch holds exactly the ntk4j dataset's
 * features and labels (or regression targets), in order without shuffling, each sample once with it;
 * and a training step runs on the batches.
 */
class DjlDatasetTest {
    /** 10 samples of shape 2×3, 3 classes; feature 0 of sample i is i, so a shuffled batch tells its indices. */
    private static LabelledSet classification() {
        Random r = new Random(5);
        int n = 10;
        int d = 6;
        float[] f = new float[n * d];
        int[] y = new int[n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < d; j++) {
                f[i * d + j] = j == 0 ? i : (float) r.nextGaussian();
            }
            y[i] = r.nextInt(3);
        }
        return new LabelledSet("toy", f, new int[] {2, 3}, y, 3);
    }

    /**
     * A small MLP. Not a single linear layer: DJL's first {@code step()} refuses gradients whose entries sum to
     * exactly zero, and under softmax cross-entropy a last layer's gradient entries sum to zero in exact arithmetic
     * (Σ_k (p_k − y_k) = 0), so with one layer the check passed or failed on the rounding of the initial weights
     * (it failed after another test had set DJL's random seed); a hidden layer's gradient has no such identity.
     */
    private static Trainer trainer(Model model, int outputs, Loss loss) {
        model.setBlock(new SequentialBlock()
                .add(Blocks.batchFlattenBlock())
                .add(Linear.builder().setUnits(8).build())
                .add(Activation.tanhBlock())
                .add(Linear.builder().setUnits(outputs).build()));
        return model.newTrainer(new DefaultTrainingConfig(loss));
    }

    @Test
    void batchesHoldTheDatasetsValuesInOrder() throws Exception {
        LabelledSet ds = classification();
        DjlDataset djl = DjlDataset.builder(ds).setSampling(4, false).build();
        assertEquals(10, djl.size());
        try (Model model = Model.newInstance("toy");
                Trainer trainer = trainer(model, 3, Loss.softmaxCrossEntropyLoss())) {
            trainer.initialize(new Shape(4, 2, 3));
            float[] w0 = model.getBlock()
                    .getParameters()
                    .get(0)
                    .getValue()
                    .getArray()
                    .toFloatArray();
            int seen = 0;
            int[] sizes = new int[3];
            int b = 0;
            for (Batch batch : trainer.iterateDataset(djl)) {
                NDArray x = batch.getData().singletonOrThrow();
                NDArray y = batch.getLabels().singletonOrThrow();
                int size = batch.getSize();
                sizes[b++] = size;
                assertEquals(new Shape(size, 2, 3), x.getShape());
                assertEquals(new Shape(size), y.getShape());
                assertArrayEquals(Arrays.copyOfRange(ds.features(), seen * 6, (seen + size) * 6), x.toFloatArray());
                float[] labels = y.toFloatArray();
                for (int i = 0; i < size; i++) {
                    assertEquals(ds.labels()[seen + i], (int) labels[i]);
                }
                EasyTrain.trainBatch(trainer, batch);
                trainer.step();
                seen += size;
                batch.close();
            }
            assertEquals(10, seen);
            assertArrayEquals(new int[] {4, 4, 2}, sizes);
            float[] w1 = model.getBlock()
                    .getParameters()
                    .get(0)
                    .getValue()
                    .getArray()
                    .toFloatArray();
            assertTrue(!Arrays.equals(w0, w1), "three training steps moved the weights");
        }
    }

    @Test
    void shuffledBatchesAndOneHotLabels() throws Exception {
        LabelledSet ds = classification();
        DjlDataset djl = DjlDataset.builder(ds).setSampling(3, true).optOneHot().build();
        try (Model model = Model.newInstance("toy");
                Trainer trainer = trainer(model, 3, Loss.l2Loss())) {
            Set<Integer> seen = new HashSet<>();
            for (Batch batch : trainer.iterateDataset(djl)) {
                float[] x = batch.getData().singletonOrThrow().toFloatArray();
                NDArray y = batch.getLabels().singletonOrThrow();
                assertEquals(new Shape(batch.getSize(), 3), y.getShape());
                float[] oh = y.toFloatArray();
                for (int r = 0; r < batch.getSize(); r++) {
                    int i = (int) x[r * 6];
                    assertTrue(seen.add(i), "sample " + i + " twice");
                    assertArrayEquals(
                            Arrays.copyOfRange(ds.features(), i * 6, i * 6 + 6),
                            Arrays.copyOfRange(x, r * 6, r * 6 + 6));
                    for (int c = 0; c < 3; c++) {
                        assertEquals(c == ds.labels()[i] ? 1f : 0f, oh[r * 3 + c]);
                    }
                }
                batch.close();
            }
            assertEquals(10, seen.size());
        }
    }

    @Test
    void regressionTargets() throws Exception {
        float[] f = new float[5 * 4];
        float[] t = new float[5 * 2];
        for (int i = 0; i < f.length; i++) {
            f[i] = i * 0.5f;
        }
        for (int i = 0; i < t.length; i++) {
            t[i] = -i;
        }
        LabelledSet ds = LabelledSet.regression("teacher", f, new int[] {4}, t, 2);
        DjlDataset djl = DjlDataset.builder(ds).setSampling(5, false).build();
        try (Model model = Model.newInstance("reg");
                Trainer trainer = trainer(model, 2, Loss.l2Loss())) {
            int batches = 0;
            for (Batch batch : trainer.iterateDataset(djl)) {
                assertArrayEquals(f, batch.getData().singletonOrThrow().toFloatArray());
                NDArray y = batch.getLabels().singletonOrThrow();
                assertEquals(new Shape(5, 2), y.getShape());
                assertArrayEquals(t, y.toFloatArray());
                batch.close();
                batches++;
            }
            assertEquals(1, batches);
        }
    }
}
