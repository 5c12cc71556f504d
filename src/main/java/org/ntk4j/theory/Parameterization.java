package org.ntk4j.theory;

/**
 * How weights are trained, as in neural-tangents' {@code stax.Dense(parameterization=...)} (Novak et al. 2020,
 * Neural Tangents; Seleznova, NTK thesis, eqs. (2.26), (2.51)–(2.53)).
 * <ul>
 *   <li>{@link #NTK}: W = (σ_w/√n_in)·w, b = σ_b·β with trainable w, β ~ N(0,1).</li>
 *   <li>{@link #STANDARD}: W ~ N(0, σ_w²/n_in), b ~ N(0, σ_b²), trained as they are.</li>
 * </ul>
 * The forward law is the same; the NTKs differ by per-layer factors (σ_w²/n_in for weights, σ_b² for biases).
 */
public enum Parameterization {
    NTK,
    STANDARD
}
