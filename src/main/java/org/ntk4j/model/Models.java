package org.ntk4j.model;

import java.util.Locale;
import org.ntk4j.spec.ModelSpec;

/** Builds the module tree of a {@link ModelSpec}. */
public final class Models {
    private Models() {}

    static Module root(ModelSpec spec) {
        switch (spec.arch) {
            case "mlp":
            case "linear":
                return mlp(spec);
            default:
                throw new org.ntk4j.UserException("unknown arch '" + spec.arch + "'; expected one of " + ModelSpec.ARCHS);
        }
    }

    /**
     * MLP: flatten, then for each hidden width Dense → φ, then a Dense readout. Layers are named
     * dense1..denseL. "linear" is a deep linear network (φ = identity).
     */
    static Module mlp(ModelSpec s) {
        Parameterization par = Parameterization.valueOf(s.parameterization.toUpperCase(Locale.ROOT));
        Initializer init = Initializer.valueOf(s.initializer.toUpperCase(Locale.ROOT));
        Activation.Kind act = "linear".equals(s.arch) ? Activation.Kind.LINEAR : Activation.Kind.parse(s.activation);
        Sequential seq = new Sequential("mlp");
        seq.add(new Flatten("flatten"));
        int l = 1;
        for (int w : s.widths) {
            seq.add(new Dense("dense" + l, w, s.biasOn(), par, init, s.sigmaW, s.sigmaB));
            if (act != Activation.Kind.LINEAR) {
                seq.add(new Activation("act" + l, act));
            }
            l++;
        }
        seq.add(new Dense("dense" + l, s.outputs, s.biasOn(), par, init, s.sigmaW, s.sigmaB));
        return seq;
    }
}
