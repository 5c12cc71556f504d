/**
 * The tangent-factor SPI, a leaf below the engine and its rules: a {@link org.ntk4j.kernel.factor.FactorBuilder}
 * reduces one layer's output gradients to its {@link org.ntk4j.kernel.factor.LayerFactor}s on a tile, whose
 * contraction against another tile's factors is that layer's block of Θ_l; {@link
 * org.ntk4j.kernel.factor.JacobianFactor} holds per-sample rows, {@link org.ntk4j.kernel.factor.HadamardFactor} a
 * forward ⊙ backward factorisation, {@link org.ntk4j.kernel.factor.Grams} the Gram products they end in and {@link
 * org.ntk4j.kernel.factor.Mode} the output axes kept. The rules ({@code kernel.rule}) implement it and the engine
 * ({@code kernel}) drives it; it imports neither.
 */
package org.ntk4j.kernel.factor;
