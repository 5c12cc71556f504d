package org.ntk4j.model;

/**
 * A normalisation followed by a trainable affine map, y = γ ⊙ x̂ + β, as {@link BatchNorm2d} and {@link LayerNorm}
 * are: γ (init 1) is the layer's weight, β (init 0) its bias, both entering y with scale 1. Tangent-aware: the
 * probe receives x̂, from which ∂f/∂γ = Σ_p δ[p]·x̂[p] and ∂f/∂β = Σ_p δ[p] over the {@link #positions()} p that
 * share one γ.
 */
public abstract class AffineNorm extends Module implements TangentLayer {
    private final Param gamma;
    private final Param beta;
    private long positions;

    protected AffineNorm(String name) {
        super(name);
        gamma = param("gamma", Param.Role.GAMMA);
        beta = param("beta", Param.Role.BETA);
    }

    /** Sets the positions per sample that share one γ (called by {@code initialize}). */
    protected void positions(long p) {
        this.positions = p;
    }

    /** Positions per sample that share one γ: H·W of batch-norm's feature maps, the vectors of layer-norm. */
    public long positions() {
        return positions;
    }

    public Param gamma() {
        return gamma;
    }

    public Param beta() {
        return beta;
    }

    @Override
    public double weightScale() {
        return 1.0;
    }

    @Override
    public double biasScale() {
        return 1.0;
    }

    @Override
    public Param weight() {
        return gamma;
    }

    @Override
    public Param bias() {
        return beta;
    }
}
