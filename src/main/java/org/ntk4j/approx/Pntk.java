package org.ntk4j.approx;

import ai.djl.ndarray.NDArray;
import org.ntk4j.kernel.KernelResult;
import org.ntk4j.kernel.Ntk;
import org.ntk4j.kernel.NtkOptions;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;

/**
 * The pseudo-NTK of Mohamadi, Bae &amp; Sutherland ("A Fast, Well-Founded Approximation to the Empirical Neural
 * Tangent Kernel", ICML 2023, arXiv 2206.12543), the kernel of the summed logits ("sum of logits"):
 * <pre>
 *   pNTK(x, x') = (1/O) J_Σ(x) J_Σ(x')ᵀ = (1/O) Σ_{o,p} Θ[(x,o),(x',p)],   J_Σ = ∂(Σ_o f_o)/∂θ
 * </pre>
 * computed by the exact engine on the one-output network g = (1/√O) Σ_o f_o ({@link Network#summedOutputs()}): one
 * backward pass per tile instead of O, and an N×N kernel. The paper proves that this approximation converges to the
 * full eNTK at initialisation for networks with a wide final readout layer (its abstract): each O×O block of the eNTK
 * approaches pNTK(x, x')·I_O, so O·pNTK approximates the traced kernel Σ_o Θ_oo. The 1/O scaling makes pNTK
 * approximate one output's Θ_oo. The rate n^{-1/2} in the readout width n that the tests measure is derived in
 * {@code PntkTest}; the paper's theorem and equation numbers were not available to check.
 */
public final class Pntk {
    private Pntk() {}

    /**
     * The pNTK of {@code net} between X1 and X2 (null: X2 = X1), with the engine options of {@code options} (its mode
     * is set to TRACE and its mean normalisation off: the one output leaves nothing to trace or average).
     */
    public static KernelResult compute(Network net, NtkOptions options, NDArray x1, NDArray x2) {
        return ntk(net, options).compute(x1, x2);
    }

    /** The exact engine on the summed-output view of {@code net}. */
    public static Ntk ntk(Network net, NtkOptions options) {
        NtkOptions o =
                options.toBuilder().mode(Mode.TRACE).meanNormalised(false).build();
        return Ntk.of(net.summedOutputs(), o);
    }
}
