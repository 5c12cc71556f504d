package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import org.ntk4j.model.Conv2d;

/**
 * Tangent factors of a {@link Conv2d} y = c_w·conv(W, a) + c_b·b on a tile: the im2col patches U
 * (n, S, C_in·k²) of its input and its output gradients D (n, O, C_out, S), S = H'·W' output
 * positions. Two exact contractions, chosen per layer by {@link #pairsCheaper}:
 * <ul>
 *   <li>ROWS: per-sample gradients ∂f_o(x_i)/∂W = c_w·D_io U_i (C_out × C_in·k²), built once per tile
 *   and contracted like Jacobian rows — cost n·O·P·S to build, n1·n2·O·P per Gram;</li>
 *   <li>PAIRS (the position-pair formula, DESIGN.md): Θ_W[(i,o),(j,p)] = c_w² Σ_{s,t}
 *   (D_io[:,s]·D_jp[:,t]) (U_i[s]·U_j[t]) — cost n1·n2·S²·(O·C_out + C_in·k²), never forming a
 *   per-sample gradient; it wins when S is small and P large (the late layers of VGG nets).</li>
 * </ul>
 * The bias part c_b² Σ_c (Σ_s D_io[c,s])(Σ_t D_jp[c,t]) is a Gram of small rows in both cases.
 */
final class ConvFactor implements LayerFactor {
    private final NDArray u;
    private final NDArray d;
    private final double cw2;
    private final double cb2;
    private final boolean pairs;
    private final DenseFactor.Part part;
    private NDArray rows;
    private NDArray biasRows;

    ConvFactor(Conv2d conv, NDArray a, NDArray delta, boolean pairs, DenseFactor.Part part) {
        long n = a.getShape().get(0);
        long o = delta.getShape().get(1);
        long cout = delta.getShape().get(2);
        long s = delta.getShape().get(3) * delta.getShape().get(4);
        int k = conv.kernel();
        long pin = a.getShape().get(1) * k * k;
        this.u = ConvFactors.im2col(a, k, conv.stride(), conv.padding(), delta.getShape().get(3), delta.getShape().get(4))
                .reshape(n, pin, s).transpose(0, 2, 1);
        this.d = delta.reshape(n, o, cout, s);
        this.cw2 = conv.weightScale() * conv.weightScale();
        this.cb2 = conv.bias() == null ? 0 : conv.biasScale() * conv.biasScale();
        this.pairs = pairs;
        this.part = conv.bias() == null && part == DenseFactor.Part.ALL ? DenseFactor.Part.WEIGHT : part;
    }

    /** Whether the position-pair contraction needs fewer FLOPs than building and contracting rows. */
    static boolean pairsCheaper(Conv2d conv, int outputs, long n1, long n2, Mode mode) {
        long s = conv.outputPositions();
        var w = conv.weight().value().getShape();
        long pin = w.get(1) * w.get(2) * w.get(3);
        long cout = w.get(0);
        long contracted = mode == Mode.FULL ? (long) outputs * outputs : outputs;
        double rows = 2.0 * (n1 + n2) * outputs * w.size() * s + 2.0 * n1 * n2 * contracted * w.size();
        double pairFlops = 2.0 * n1 * n2 * s * s * (contracted * cout + pin);
        return pairFlops < rows;
    }

    /** FLOPs of this layer's kernel by the chosen contraction. */
    static double flops(Conv2d conv, int outputs, long n1, long n2, Mode mode, boolean pairs) {
        long s = conv.outputPositions();
        var w = conv.weight().value().getShape();
        long pin = w.get(1) * w.get(2) * w.get(3);
        long contracted = mode == Mode.FULL ? (long) outputs * outputs : outputs;
        return pairs ? 2.0 * n1 * n2 * s * s * (contracted * w.get(0) + pin)
                : 2.0 * (n1 + n2) * outputs * w.size() * s + 2.0 * n1 * n2 * contracted * w.size();
    }

    /** Per-sample elements this factor holds on the device (patches, gradients, and rows when built). */
    static long elementsPerSample(Conv2d conv, int outputs, boolean pairs) {
        var w = conv.weight().value().getShape();
        long pin = w.get(1) * w.get(2) * w.get(3);
        long s = conv.outputPositions();
        return pin * s + (long) outputs * w.get(0) * s + (pairs ? 0 : (long) outputs * w.size());
    }

    private NDArray rows() {
        if (rows == null) {
            long n = d.getShape().get(0);
            long o = d.getShape().get(1);
            long cout = d.getShape().get(2);
            rows = d.reshape(n, o * cout, -1).batchMatMul(u).reshape(n, o, -1);
        }
        return rows;
    }

    private NDArray biasRows() {
        if (biasRows == null) {
            biasRows = d.sum(new int[] {3});
        }
        return biasRows;
    }

    @Override
    public NDArray contract(LayerFactor other, Mode mode) {
        ConvFactor f = (ConvFactor) other;
        NDArray weight = null;
        if (part != DenseFactor.Part.BIAS) {
            weight = (pairs ? pairGram(f, mode) : Grams.outputGram(rows(), f.rows(), mode)).mul(cw2);
        }
        if (part == DenseFactor.Part.WEIGHT) {
            return weight;
        }
        NDArray bias = Grams.outputGram(biasRows(), f.biasRows(), mode).mul(cb2);
        return weight == null ? bias : weight.add(bias);
    }

    /** Σ_{s,t} (D_io[:,s]·D_jp[:,t]) (U_i[s]·U_j[t]) reduced per mode, without per-sample gradients. */
    private NDArray pairGram(ConvFactor f, Mode mode) {
        long n1 = d.getShape().get(0);
        long n2 = f.d.getShape().get(0);
        long o = d.getShape().get(1);
        long c = d.getShape().get(2);
        long s = d.getShape().get(3);
        NDArray gu = u.reshape(n1 * s, -1).matMul(f.u.reshape(n2 * s, -1).transpose()); // (n1 s, n2 s)
        NDArray d1 = d.transpose(0, 1, 3, 2); // (n, O, S, C)
        NDArray d2 = f.d.transpose(0, 1, 3, 2);
        switch (mode) {
            case TRACE: {
                NDArray gd = d1.transpose(0, 2, 1, 3).reshape(n1 * s, o * c)
                        .matMul(d2.transpose(0, 2, 1, 3).reshape(n2 * s, o * c).transpose());
                return gd.mul(gu).reshape(n1, s, n2, s).sum(new int[] {1, 3});
            }
            case DIAGONAL: {
                NDArray gd = d1.transpose(1, 0, 2, 3).reshape(o, n1 * s, c)
                        .batchMatMul(d2.transpose(1, 3, 0, 2).reshape(o, c, n2 * s)); // (O, n1 s, n2 s)
                return gd.mul(gu.expandDims(0)).reshape(o, n1, s, n2, s).sum(new int[] {2, 4}).transpose(1, 2, 0);
            }
            default: {
                NDArray gd = d1.reshape(n1 * o * s, c).matMul(d2.reshape(n2 * o * s, c).transpose())
                        .reshape(n1, o, s, n2, o, s);
                NDArray g = gu.reshape(n1, 1, s, n2, 1, s);
                return gd.mul(g).sum(new int[] {2, 5}).transpose(0, 2, 1, 3);
            }
        }
    }

    @Override
    public long bytes() {
        long e = u.size() + d.size() + (rows == null ? 0 : rows.size());
        return e * u.getDataType().getNumOfBytes();
    }

}
