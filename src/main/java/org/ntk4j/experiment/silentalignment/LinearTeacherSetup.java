package org.ntk4j.experiment.silentalignment;

import java.util.Locale;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.data.Split;
import org.ntk4j.data.SyntheticDatasets;
import org.ntk4j.spec.DatasetKind;
import org.ntk4j.spec.DatasetSpec;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;

/**
 * The shared setup of the linear-network studies of Atanasov, Bordelon &amp; Pehlevan, Silent Alignment (§3, App. B):
 * whitened inputs with a linear teacher, deep linear networks with N(0, σ²/fan_in) weights and no biases, and
 * explicit-Euler gradient descent on ℒ = (1/2P)‖f − y‖² with step dt (time t = k·dt).
 */
final class LinearTeacherSetup {
    private LinearTeacherSetup() {}

    /** P points in D dimensions, XᵀX/P = I, y = s·βᵀx with ‖β‖ = 1. */
    static LabelledSet whitenedTeacher(int d, int points, double s, long seed) {
        String name = "whitened-linear-d" + d;
        DatasetSpec.Builder data = DatasetSpec.builder()
                .name(name)
                .kind(DatasetKind.WHITENED_LINEAR_TEACHER)
                .d(d)
                .train(points)
                .s(s)
                .seed(seed);
        return SyntheticDatasets.load(data.validate(name), Split.TRAIN);
    }

    /** A linear network D → widths... → 1 with every layer N(0, σ²/fan_in) and no biases. */
    static ModelSpec linearNet(String name, int d, int[] widths, double sigma) {
        return linearNet(name, d, widths, 1, sigma);
    }

    /** A linear network D → widths... → C outputs with every layer N(0, σ²/fan_in) and no biases. */
    static ModelSpec linearNet(String name, int d, int[] widths, int outputs, double sigma) {
        StringBuilder w = new StringBuilder();
        for (int i = 0; i < widths.length; i++) {
            w.append(i > 0 ? ", " : "").append(widths[i]);
        }
        return ModelSpec.parse(
                String.format(
                        Locale.ROOT,
                        "{\"name\": \"%s\", \"arch\": \"linear\", \"input\": [%d],"
                                + " \"widths\": [%s], \"outputs\": %d, \"sigmaW\": %s, \"initializer\": \"gaussian\"}",
                        name,
                        d,
                        w,
                        outputs,
                        sigma),
                name);
    }

    /** Full-batch gradient descent on the MSE with step dt up to time T (T/dt one-step epochs). */
    static TrainSpec gradientDescent(double dt, double time, long seed) {
        TrainSpec.Builder t = TrainSpec.builder();
        t.loss = "mse";
        t.batchSize = 0;
        t.lr = dt;
        t.epochs = (int) Math.round(time / dt);
        t.seed = seed;
        return t.build();
    }

    /** β = Xᵀy/(sP): exact for whitened inputs (XᵀX/P = I) and y = s·Xβ. */
    static double[] teacher(LabelledSet train, double s) {
        int p = train.size();
        int d = train.featureDim();
        double[] beta = new double[d];
        for (int i = 0; i < p; i++) {
            for (int j = 0; j < d; j++) {
                beta[j] += (double) train.features()[i * d + j] * train.targets()[i] / (s * p);
            }
        }
        return beta;
    }
}
