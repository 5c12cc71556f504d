package org.ntk4j.approx;

import ai.djl.ndarray.NDArray;
import org.ntk4j.UserException;
import org.ntk4j.kernel.NtkOptions;
import org.ntk4j.kernel.TangentSketch;
import org.ntk4j.kernel.sketch.SketchKind;
import org.ntk4j.model.Network;

/**
 * The sketched tangent features of a traced kernel as a {@link LowRankKernel}: F = J_X P and G = J_{X*} P, the
 * per-sample Jacobians of the train and test inputs projected by the same seeded P (k columns, E[P Pᵀ] = I), so that
 * E[F Fᵀ] = K(X, X) and E[G Fᵀ] = K(X*, X) ({@link TangentSketch}; Park et al. 2023, "TRAK: Attributing Model
 * Behavior at Scale", §3.1). The variant names the projection: {@code kr}, the Khatri–Rao projection that sketches a
 * dense layer's rank-one gradients without forming them, or {@code gauss}, a dense Gaussian one for small networks.
 */
public final class SketchedFeatures {
    private SketchedFeatures() {}

    /**
     * What a sketch produced.
     *
     * @param kernel the features F (and G), r = k
     * @param seconds wall time of the features
     */
    public record Result(LowRankKernel kernel, double seconds) {}

    /** The projection a {@code sketch:K:variant} names. */
    public static SketchKind kind(ApproxSpec spec) {
        if (spec.kind() != ApproxSpec.Kind.SKETCH || spec.rank() < 1) {
            throw new IllegalArgumentException("not a sketch spec with a rank: " + spec);
        }
        return switch (spec.variant()) {
            case "kr" -> SketchKind.KHATRI_RAO;
            case "gauss" -> SketchKind.GAUSSIAN;
            default -> throw new UserException("--approx " + spec + ": the sketch is kr or gauss");
        };
    }

    /**
     * The sketched features of {@code net}'s traced kernel on train inputs {@code x} (N, input...) and test inputs
     * {@code xTest} (or null), projected to {@code spec}'s k dimensions from {@code seed}; {@code options} give the
     * memory budget and the tile.
     */
    public static Result compute(
            Network net, NtkOptions options, NDArray x, NDArray xTest, ApproxSpec spec, long seed) {
        SketchKind kind = kind(spec);
        long t0 = System.nanoTime();
        TangentSketch sketch = TangentSketch.of(net, options);
        try (NDArray f = sketch.features(x, spec.rank(), kind, seed);
                NDArray g = xTest == null ? null : sketch.features(xTest, spec.rank(), kind, seed)) {
            LowRankKernel k = LowRankKernel.of(spec.toString(), f, g);
            return new Result(k, (System.nanoTime() - t0) / 1e9);
        }
    }
}
