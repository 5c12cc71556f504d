package org.ntk4j.data;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.dataset.Record;
import ai.djl.util.Progress;
import java.util.Arrays;

/**
 * An ntk4j {@link Dataset} as a DJL {@link RandomAccessDataset}, for DJL's {@code Trainer},
 * {@code EasyTrain} and data pipelines. Record i holds:
 * <ul>
 *   <li>data: the features of sample i, float32 of shape {@link Dataset#sampleShape()} (batches:
 *       (B, sampleShape...));</li>
 *   <li>label: for a classification set the class index as a float32 scalar (DJL's convention, as
 *       its MNIST; what {@code Loss.softmaxCrossEntropyLoss()} takes; batches: (B)), or with
 *       {@link Builder#optOneHot()} a one-hot float32 vector of numClasses; for a regression set the
 *       targets, float32 of shape (targetOutputs) (batches: (B, targetOutputs)).</li>
 * </ul>
 * <pre>{@code
 * DjlDataset train = DjlDataset.builder(Datasets.load(...)).setSampling(64, true).build();
 * for (Batch b : trainer.iterateDataset(train)) { EasyTrain.trainBatch(trainer, b); trainer.step(); b.close(); }
 * }</pre>
 * The ntk4j dataset's arrays are shared, not copied.
 */
public final class DjlDataset extends RandomAccessDataset {
    private final Dataset data;
    private final boolean oneHot;
    private final Shape sampleShape;
    private final int dim;

    private DjlDataset(Builder builder) {
        super(builder);
        this.data = builder.data;
        this.oneHot = builder.oneHot;
        this.sampleShape =
                new Shape(Arrays.stream(data.sampleShape()).asLongStream().toArray());
        this.dim = data.featureDim();
    }

    /** A builder over {@code data}; call {@code setSampling(batchSize, shuffle)} before {@code build()}. */
    public static Builder builder(Dataset data) {
        return new Builder(data);
    }

    /** The ntk4j dataset behind this one. */
    public Dataset dataset() {
        return data;
    }

    @Override
    public Record get(NDManager manager, long index) {
        int i = Math.toIntExact(index);
        if (i < 0 || i >= data.size()) {
            throw new IndexOutOfBoundsException("index " + index + " outside [0, " + data.size() + ")");
        }
        NDArray x = manager.create(Arrays.copyOfRange(data.features(), i * dim, (i + 1) * dim), sampleShape);
        NDArray y;
        if (data.isRegression()) {
            int k = data.targetOutputs();
            y = manager.create(Arrays.copyOfRange(data.targets(), i * k, (i + 1) * k), new Shape(k));
        } else if (oneHot) {
            float[] v = new float[data.numClasses()];
            v[data.labels()[i]] = 1f;
            y = manager.create(v, new Shape(v.length));
        } else {
            y = manager.create((float) data.labels()[i]);
        }
        return new Record(new NDList(x), new NDList(y));
    }

    @Override
    protected long availableSize() {
        return data.size();
    }

    @Override
    public void prepare(Progress progress) {
        // in memory already
    }

    /** Builder of a {@link DjlDataset}: DJL's sampling, batchifier, pipeline and limit options, plus {@link #optOneHot()}. */
    public static final class Builder extends RandomAccessDataset.BaseBuilder<Builder> {
        private final Dataset data;
        private boolean oneHot;

        private Builder(Dataset data) {
            this.data = java.util.Objects.requireNonNull(data);
        }

        /** Class labels as one-hot float32 vectors (ignored for a regression set). */
        public Builder optOneHot() {
            this.oneHot = true;
            return this;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** The dataset; {@code setSampling} must have been called. */
        public DjlDataset build() {
            if (sampler == null) {
                throw new IllegalStateException("call setSampling(batchSize, shuffle) before build()");
            }
            return new DjlDataset(this);
        }
    }
}
