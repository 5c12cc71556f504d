package org.ntk4j.model;

/**
 * Weight initialisers the papers use, for a weight with fan-in n_in (fan-out n_out).
 * GAUSSIAN: N(0, σ_w²/n_in) (σ_w from the spec; the standard-parameterisation init of neural-tangents);
 * HE: N(0, 2/n_in); LECUN: N(0, 1/n_in); HE_FAN_OUT: N(0, 2/n_out) (torchvision ResNets' conv init);
 * TORCH_DEFAULT: U(−1/√n_in, 1/√n_in) for weight and bias (PyTorch nn.Linear / nn.Conv2d).
 * In NTK parameterisation the trained weights are always N(0, 1) and these do not apply.
 */
public enum WeightInit {
    GAUSSIAN,
    HE,
    LECUN,
    HE_FAN_OUT,
    TORCH_DEFAULT;

    /** Standard deviation of the Gaussian initialisers (not TORCH_DEFAULT). */
    public double std(double sigmaW, long fanIn, long fanOut) {
        switch (this) {
            case GAUSSIAN:
                return sigmaW / Math.sqrt(fanIn);
            case HE:
                return Math.sqrt(2.0 / fanIn);
            case LECUN:
                return Math.sqrt(1.0 / fanIn);
            case HE_FAN_OUT:
                return Math.sqrt(2.0 / fanOut);
            default:
                throw new IllegalStateException(this + " is uniform");
        }
    }
}
