package org.ntk4j.kernel.factor;

import ai.djl.ndarray.NDArray;

/**
 * The tangent factors of one parameterised layer (or one parameter) on one tile of inputs, from
 * which its kernel block against another tile is a contraction. Factors live in the tile's manager.
 * A {@link org.ntk4j.kernel.rule.TangentRule} produces them (through its {@link FactorBuilder}); the
 * contraction is the rule's formula for Θ_l.
 */
public interface LayerFactor {
    /** Θ_l block between this tile (rows) and {@code other} (columns): (n1, n2[, O[, O]]). */
    NDArray contract(LayerFactor other, Mode mode);
}
