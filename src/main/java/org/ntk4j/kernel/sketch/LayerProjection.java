package org.ntk4j.kernel.sketch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;

/**
 * The seeded projection P (R·C × k) of one layer's per-sample gradients, each an R × C matrix M_i (a dense layer:
 * R = O·out output-gradient entries by C = in (+ 1 for the bias) input entries; any other layer: R = O outputs by
 * C = P_l parameters), flattened row-major. Scaled so that E[P Pᵀ] = I: the features s_i = vec(M_i)ᵀ P are an
 * unbiased sketch, E[s_i · s_j] = ⟨M_i, M_j⟩ (Johnson &amp; Lindenstrauss; for the sum over layers and outputs, the
 * traced empirical NTK of Jacot, Gabriel &amp; Hongler 2018, "Neural Tangent Kernel", Eq. 2). Arrays it draws live in
 * the manager it was made with, in its data type; the results of {@code project} in the arguments' manager.
 */
public interface LayerProjection {
    /** Output entries per row block R. */
    long rows();

    /** Entries per row C. */
    long cols();

    /** Sketch dimension k. */
    int k();

    /** s (n, k) of general rows {@code m} (n, R, C). */
    NDArray project(NDArray m);

    /** s (n, k) of rank-one rows M_i = d_i a_iᵀ, from {@code d} (n, R) and {@code a} (n, C). */
    NDArray projectRankOne(NDArray d, NDArray a);

    /** The dense form of P, (R·C, k), in {@code m}: for tests, and only for small layers. */
    NDArray matrix(NDManager m);

    /**
     * A projection of {@code kind} with {@code k} columns for one layer (index {@code layer} in the network) of R ×
     * C rows, drawn from {@code streams} into {@code m} in the data type {@code type}.
     */
    static LayerProjection of(
            SketchKind kind, int k, Streams streams, int layer, Shape rc, NDManager m, DataType type) {
        long rows = rc.get(0);
        long cols = rc.get(1);
        return kind == SketchKind.GAUSSIAN
                ? new GaussianProjection(streams, layer, rows, cols, k, m, type)
                : new KhatriRaoProjection(streams, layer, rows, cols, k, m, type);
    }
}
