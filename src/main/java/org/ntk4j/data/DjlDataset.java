package org.ntk4j.data;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.RandomAccessDataset;
import ai.djl.training.dataset.Record;
import ai.djl.training.dataset.Sampler;
import ai.djl.translate.TranslateException;
import ai.djl.util.Progress;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;

/**
 * An ntk4j {@link LabelledSet} as a DJL {@link RandomAccessDataset}, for DJL's {@code Trainer},
 * {@code EasyTrain} and data pipelines. Record i holds:
 * <ul>
 *   <li>data: the features of sample i, float32 of shape {@link LabelledSet#sampleShape()} (batches:
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
 * The ntk4j dataset's arrays are shared, not copied, until DJL iterates over it ({@code trainer.iterateDataset},
 * {@code EasyTrain.fit}): then the whole set is put into the engine once, in the iterating manager (on its device),
 * and each batch is one gather from it, as DJL's own {@link ArrayDataset} does, instead of one array per sample and
 * a stack per batch. The batches are the same.
 */
public final class DjlDataset extends ArrayDataset {
    private final LabelledSet source;
    private NDManager heldIn;
    private final boolean oneHot;
    private final Shape sampleShape;
    private final int dim;

    private DjlDataset(Builder builder) {
        super(builder);
        this.source = builder.data;
        this.oneHot = builder.oneHot;
        this.sampleShape =
                new Shape(Arrays.stream(source.sampleShape()).asLongStream().toArray());
        this.dim = source.featureDim();
    }

    /** A builder over {@code data}; call {@code setSampling(batchSize, shuffle)} before {@code build()}. */
    public static Builder builder(LabelledSet data) {
        return new Builder(data);
    }

    /** The ntk4j dataset behind this one. */
    public LabelledSet dataset() {
        return source;
    }

    @Override
    public Record get(NDManager manager, long index) {
        int i = Math.toIntExact(index);
        if (i < 0 || i >= source.size()) {
            throw new IndexOutOfBoundsException("index " + index + " outside [0, " + source.size() + ")");
        }
        NDArray x = manager.create(Arrays.copyOfRange(source.features(), i * dim, (i + 1) * dim), sampleShape);
        NDArray y;
        if (source.isRegression()) {
            int k = source.targetOutputs();
            y = manager.create(Arrays.copyOfRange(source.targets(), i * k, (i + 1) * k), new Shape(k));
        } else if (oneHot) {
            float[] v = new float[source.numClasses()];
            v[source.labels()[i]] = 1f;
            y = manager.create(v, new Shape(v.length));
        } else {
            y = manager.create((float) source.labels()[i]);
        }
        return new Record(new NDList(x), new NDList(y));
    }

    @Override
    protected long availableSize() {
        return source.size();
    }

    /**
     * Batches of the whole set held in {@code manager}: put there once (again only if a different or closed manager
     * asks), then one gather per batch (DJL's bulk iteration); with a batchifier other than stacking, record by
     * record.
     */
    @Override
    public Iterable<Batch> getData(NDManager manager, Sampler sampler, ExecutorService executorService)
            throws IOException, TranslateException {
        if (heldIn != manager || !manager.isOpen()) {
            NDManager m = manager.newSubManager();
            NDArray x = m.create(source.features(), new Shape(prepend(source.size(), sampleShape.getShape())));
            NDArray y;
            if (source.isRegression()) {
                y = m.create(source.targets(), new Shape(source.size(), source.targetOutputs()));
            } else if (oneHot) {
                y = m.create(
                        Preprocess.oneHot(source.labels(), source.numClasses()),
                        new Shape(source.size(), source.numClasses()));
            } else {
                float[] v = new float[source.size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = source.labels()[i];
                }
                y = m.create(v, new Shape(v.length));
            }
            data = new NDArray[] {x.duplicate()}; // native copies: the Java buffers behind x, y may be collected
            labels = new NDArray[] {y.duplicate()};
            x.close();
            y.close();
            heldIn = manager;
        }
        return super.getData(manager, sampler, executorService);
    }

    private static long[] prepend(long n, long[] shape) {
        long[] s = new long[shape.length + 1];
        s[0] = n;
        System.arraycopy(shape, 0, s, 1, shape.length);
        return s;
    }

    @Override
    public void prepare(Progress progress) {
        // in memory already
    }

    /** Builder of a {@link DjlDataset}: DJL's sampling, batchifier, pipeline and limit options, plus {@link #optOneHot()}. */
    public static final class Builder extends RandomAccessDataset.BaseBuilder<Builder> {
        private final LabelledSet data;
        private boolean oneHot;

        private Builder(LabelledSet data) {
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
