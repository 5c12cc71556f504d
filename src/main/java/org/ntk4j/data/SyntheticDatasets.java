package org.ntk4j.data;

import org.ntk4j.spec.DatasetSpec;

/**
 * Regression {@link LabelledSet}s from a {@link DatasetSpec}: the training split is the teacher's P
 * generated points; the test split is {@code test} fresh points of the same input distribution
 * labelled by the same teacher. Whitened training inputs are whitened exactly over the P points
 * (XᵀX/P = I on their span), so their test points are fresh N(0, I) draws — the population the
 * whitened sample stands for. Everything is a pure function of the spec.
 */
public final class SyntheticDatasets {
    private SyntheticDatasets() {}

    public static LabelledSet load(DatasetSpec spec, Split split) {
        int p = spec.train();
        int m = spec.test();
        int[] shape = {spec.d()};
        String tag = spec.name() + "-" + split.name().toLowerCase(java.util.Locale.ROOT);
        RegressionData data;
        switch (spec.kind()) {
            case WHITENED_LINEAR_TEACHER: {
                Synthetic.Teacher t = Synthetic.whitenedLinearTeacher(p, spec.d(), spec.s(), spec.seed());
                data = split == Split.TRAIN ? t.data() : fresh(t, m, spec.d(), spec.s(), spec.seed());
                break;
            }
            case MULTI_OUTPUT_TEACHER: {
                Synthetic.Teacher t = Synthetic.multiOutputTeacher(p, spec.d(), spec.singularValues(), spec.seed());
                data = split == Split.TRAIN ? t.data() : fresh(t, m, spec.d(), 1.0, spec.seed());
                break;
            }
            case ANISOTROPIC_LINEAR_TEACHER: {
                // train and test drawn together so that they share the covariance's eigenbasis
                Synthetic.Teacher t = Synthetic.anisotropicLinearTeacher(
                        p + m, spectrum(spec), spec.haarBasis(), spec.s(), spec.seed());
                data = split == Split.TRAIN ? t.data().rows(0, p) : t.data().rows(p, p + m);
                break;
            }
            case CHAIN_MONOMIAL: {
                RegressionData all = Synthetic.chainMonomial(p + m, spec.d(), spec.r(), spec.seed());
                data = split == Split.TRAIN ? all.rows(0, p) : all.rows(p, p + m);
                break;
            }
            default:
                throw new IllegalStateException(String.valueOf(spec.kind()));
        }
        return LabelledSet.regression(tag, data.x(), shape, data.y(), data.outputs());
    }

    /** m fresh N(0, I) points labelled by the teacher. */
    private static RegressionData fresh(Synthetic.Teacher t, int m, int d, double s, long seed) {
        float[] x = Synthetic.gaussian(m, d, seed ^ 0x5DEECE66DL);
        return new RegressionData("test", x, m, d, t.predict(x, s), t.outputs());
    }

    private static double[] spectrum(DatasetSpec spec) {
        switch (spec.spectrum()) {
            case GEOMETRIC:
                return Synthetic.geometricSpectrum(spec.d(), spec.first(), spec.last());
            case INVERSE_ONE_PLUS_POWER:
                return Synthetic.inverseOnePlusPowerSpectrum(spec.d(), spec.alpha());
            default:
                return Synthetic.powerLawSpectrum(spec.d(), spec.alpha());
        }
    }
}
