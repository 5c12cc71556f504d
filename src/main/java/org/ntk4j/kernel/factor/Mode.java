package org.ntk4j.kernel.factor;

/**
 * Which output axes the kernel keeps (DESIGN.md "Scale"). FULL: Θ[i,j,o,p] (exported N1×N2×O×O,
 * as neural-tangents and torch.func); TRACE: Σ_o Θ[i,j,o,o] (N1×N2); DIAGONAL: Θ[i,j,o,o] (N1×N2×O).
 */
public enum Mode {
    FULL,
    TRACE,
    DIAGONAL
}
