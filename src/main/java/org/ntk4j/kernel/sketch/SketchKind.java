package org.ntk4j.kernel.sketch;

import java.util.Locale;

/** Which seeded projection sketches the tangent features. */
public enum SketchKind {
    /**
     * A dense Gaussian P with i.i.d. N(0, 1/k) entries (Johnson &amp; Lindenstrauss; the projection TRAK uses: Park et
     * al. 2023, "TRAK: Attributing Model Behavior at Scale", §3.1). Drawing it costs R·C·k numbers per layer per
     * tile, so it suits small networks and is the reference the structured one is held to.
     */
    GAUSSIAN,
    /**
     * Columns p_c = u_c ⊗ v_c with u_c ∈ ℝ^R, v_c ∈ ℝ^C i.i.d. standard Gaussian, scaled by 1/√k (the row-wise
     * Khatri–Rao, or tensor, random projection: Sun, Guo, Luo, Tropp &amp; Udell 2021, "Tensor Random Projection for
     * Low Memory Dimension Reduction", Eq. (2); Rakhshan &amp; Rabusseau 2020, "Tensorized Random Projections",
     * Eq. (3)). On a rank-one gradient d aᵀ it is (uᵀd)(vᵀa): O(k·(R + C)) per sample, never the R·C entries.
     */
    KHATRI_RAO;

    /** The name a user writes: {@code gaussian} or {@code khatri-rao}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The kind named {@code s} ({@code gaussian}, {@code khatri-rao}), or null. */
    public static SketchKind parse(String s) {
        for (SketchKind k : values()) {
            if (k.label().equals(s)) {
                return k;
            }
        }
        return null;
    }
}
