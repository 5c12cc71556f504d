package org.ntk4j.model;

/**
 * How a layer's weights enter its output (DESIGN.md "Parameterisation", notes/003.md §1.2).
 * STANDARD: y = W a + b with W ~ N(0, σ_w²/fan_in), b ~ N(0, σ_b²), trained as is.
 * NTK: y = (σ_w/√fan_in) w a + σ_b b with w, b ~ N(0, 1) trained (Jacot et al. 2018).
 */
public enum Parameterization { STANDARD, NTK }
