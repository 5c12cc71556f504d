package org.ntk4j.kernel.rule;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import org.ntk4j.kernel.factor.EngineOps;
import org.ntk4j.kernel.factor.FactorBuilder;
import org.ntk4j.kernel.factor.Grams;
import org.ntk4j.kernel.factor.LayerFactor;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.kernel.factor.RowViews;

/**
 * Tangent factors of a 2-d convolution ({@link ConvGeometry}) y = c_w·conv(W, a) + c_b·b on a tile: the im2col patches U
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
    private final double cw2;
    private final double cb2;
    private final boolean pairs;
    private final DenseFactor.Part part;
    /** PAIRS: patches (n, S, C_in·k²) and gradients (n, O, C_out, S); null for ROWS. */
    private final NDArray u;

    private final NDArray d;
    /** ROWS: c_w-free per-sample weight gradients, rows[o] (n, C_out·C_in·k²); null for PAIRS or a bias part. */
    private final NDArray[] rows;
    /** Σ_s D_io[:, s] (n, O, C_out); null without a bias part. */
    private final RowViews biasRows;

    private NDArray cw2Scalar;
    private NDArray cb2Scalar;

    private ConvFactor(
            double cw2,
            double cb2,
            boolean pairs,
            DenseFactor.Part part,
            NDArray u,
            NDArray d,
            NDArray[] rows,
            NDArray biasRows) {
        this.cw2 = cw2;
        this.cb2 = cb2;
        this.pairs = pairs;
        this.part = part;
        this.u = u;
        this.d = d;
        this.rows = rows;
        this.biasRows = biasRows == null ? null : new RowViews(biasRows);
    }

    /**
     * Forms the im2col patches U_i of the layer input once, then per output o either the rows
     * D_io U_i (ROWS: one batched matmul per output, (n, C_out, S)·(n, S, C_in·k²)) or a copy of D_o (PAIRS),
     * and the bias rows Σ_s D_io[:, s].
     */
    static final class Builder extends FactorBuilder {
        private final ConvGeometry conv;
        private final boolean pairs;
        private final NDArray patches;
        private NDArray d;
        private NDArray[] rows;
        private NDArray biasRows;

        Builder(ConvGeometry conv, NDArray a, boolean pairs, int outputs, NDManager keep) {
            super(keep, outputs);
            this.conv = conv;
            this.pairs = pairs;
            long n = a.getShape().get(0);
            int k = conv.kernel();
            long pin = a.getShape().get(1) * k * k;
            long ho = (a.getShape().get(2) + 2L * conv.padding() - k) / conv.stride() + 1;
            long wo = (a.getShape().get(3) + 2L * conv.padding() - k) / conv.stride() + 1;
            NDArray p = ConvFactors.im2col(a, k, conv.stride(), conv.padding(), ho, wo)
                    .reshape(n, pin, ho * wo)
                    .transpose(0, 2, 1);
            if (pairs) {
                p.attach(keep);
                NDScope.unregister(p); // made in the probe pass's scope, kept by the factor
            }
            this.patches = p;
        }

        @Override
        public void accept(int o, NDArray g) {
            long n = g.getShape().get(0);
            long cout = g.getShape().get(1);
            NDArray gs = g.reshape(n, cout, -1); // (n, C_out, S)
            if (pairs) {
                if (d == null) {
                    d = buffer(g, cout, gs.getShape().get(2));
                }
                put(d, o, gs);
            } else {
                if (rows == null) {
                    rows = new NDArray[outputs];
                }
                // (n, C_out, C_in·k²) = ∂f_o(x_i)/∂W / c_w, kept as computed (no copy into a buffer)
                rows[o] = gs.batchMatMul(patches).reshape(n, -1);
                rows[o].attach(keep);
                NDScope.unregister(rows[o]);
            }
            if (conv.bias() != null) {
                if (biasRows == null) {
                    biasRows = buffer(g, cout);
                }
                put(biasRows, o, gs.sum(new int[] {2}));
            }
        }

        @Override
        public void finish(java.util.Map<String, LayerFactor> out, boolean parts) {
            double cw2 = conv.weightScale() * conv.weightScale();
            double cb2 = conv.bias() == null ? 0 : conv.biasScale() * conv.biasScale();
            NDArray u = pairs ? patches : null;
            if (!parts || conv.bias() == null) {
                DenseFactor.Part part = conv.bias() == null ? DenseFactor.Part.WEIGHT : DenseFactor.Part.ALL;
                out.put(
                        parts ? conv.weight().name() : conv.name(),
                        new ConvFactor(cw2, cb2, pairs, part, u, d, rows, biasRows));
                return;
            }
            out.put(conv.weight().name(), new ConvFactor(cw2, cb2, pairs, DenseFactor.Part.WEIGHT, u, d, rows, null));
            out.put(
                    conv.bias().name(),
                    new ConvFactor(cw2, cb2, pairs, DenseFactor.Part.BIAS, null, null, null, biasRows));
        }
    }

    /** Whether the position-pair contraction needs fewer FLOPs than building and contracting rows. */
    static boolean pairsCheaper(ConvGeometry conv, int outputs, long n1, long n2, Mode mode) {
        long s = conv.positions();
        var w = conv.weight().value().getShape();
        long pin = w.get(1) * w.get(2) * w.get(3);
        long cout = w.get(0);
        long contracted = mode == Mode.FULL ? (long) outputs * outputs : outputs;
        double rows = 2.0 * (n1 + n2) * outputs * w.size() * s + 2.0 * n1 * n2 * contracted * w.size();
        double pairFlops = 2.0 * n1 * n2 * s * s * (contracted * cout + pin);
        return pairFlops < rows;
    }

    /** FLOPs of this layer's kernel by the chosen contraction. */
    static double flops(ConvGeometry conv, int outputs, long n1, long n2, Mode mode, boolean pairs) {
        long s = conv.positions();
        var w = conv.weight().value().getShape();
        long pin = w.get(1) * w.get(2) * w.get(3);
        long contracted = mode == Mode.FULL ? (long) outputs * outputs : outputs;
        return pairs
                ? 2.0 * n1 * n2 * s * s * (contracted * w.get(0) + pin)
                : 2.0 * (n1 + n2) * outputs * w.size() * s + 2.0 * n1 * n2 * contracted * w.size();
    }

    /** Per-sample elements this factor keeps on the device for the contractions. */
    static long elementsPerSample(ConvGeometry conv, int outputs, boolean pairs) {
        var w = conv.weight().value().getShape();
        long pin = w.get(1) * w.get(2) * w.get(3);
        long s = conv.positions();
        long bias = conv.bias() == null ? 0 : (long) outputs * w.get(0);
        return bias + (pairs ? pin * s + (long) outputs * w.get(0) * s : (long) outputs * w.size());
    }

    /** Per-sample elements held only while the probe pass runs: the patches of a ROWS layer. */
    static long transientPerSample(ConvGeometry conv, boolean pairs) {
        var w = conv.weight().value().getShape();
        return pairs ? 0 : w.get(1) * w.get(2) * w.get(3) * conv.positions();
    }

    @Override
    public NDArray contract(LayerFactor other, Mode mode) {
        ConvFactor f = (ConvFactor) other;
        NDArray weight = null;
        if (part != DenseFactor.Part.BIAS) {
            weight = pairs ? pairGram(f, mode) : Grams.outputGram(rows, f.rows, mode);
            if (cw2 != 1) {
                EngineOps.mulInPlace(weight, scalar(cw2));
            }
        }
        if (part == DenseFactor.Part.WEIGHT) {
            return weight;
        }
        NDArray bias = biasRows.gram(f.biasRows, mode);
        if (cb2 != 1) {
            EngineOps.mulInPlace(bias, scalar(cb2));
        }
        if (weight == null) {
            return bias;
        }
        EngineOps.addInPlace(weight, bias);
        bias.close();
        return weight;
    }

    /** c_w² or c_b² as a kept 0-d scalar (made once per factor). */
    private NDArray scalar(double v) {
        NDArray like = biasRows != null ? biasRows.rows() : d != null ? d : rows[0];
        if (v == cw2) {
            if (cw2Scalar == null) {
                cw2Scalar = EngineOps.scalar(like, v);
            }
            return cw2Scalar;
        }
        if (cb2Scalar == null) {
            cb2Scalar = EngineOps.scalar(like, v);
        }
        return cb2Scalar;
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
                NDArray gd = d1.transpose(0, 2, 1, 3)
                        .reshape(n1 * s, o * c)
                        .matMul(d2.transpose(0, 2, 1, 3).reshape(n2 * s, o * c).transpose());
                return gd.mul(gu).reshape(n1, s, n2, s).sum(new int[] {1, 3});
            }
            case DIAGONAL: {
                NDArray gd = d1.transpose(1, 0, 2, 3)
                        .reshape(o, n1 * s, c)
                        .batchMatMul(d2.transpose(1, 3, 0, 2).reshape(o, c, n2 * s)); // (O, n1 s, n2 s)
                return gd.mul(gu.expandDims(0))
                        .reshape(o, n1, s, n2, s)
                        .sum(new int[] {2, 4})
                        .transpose(1, 2, 0);
            }
            default: {
                NDArray gd = d1.reshape(n1 * o * s, c)
                        .matMul(d2.reshape(n2 * o * s, c).transpose())
                        .reshape(n1, o, s, n2, o, s);
                NDArray g = gu.reshape(n1, 1, s, n2, 1, s);
                return gd.mul(g).sum(new int[] {2, 5}).transpose(0, 2, 1, 3);
            }
        }
    }
}
