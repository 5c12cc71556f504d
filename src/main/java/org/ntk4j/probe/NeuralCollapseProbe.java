package org.ntk4j.probe;

import static org.ntk4j.report.RunReport.column;
import static org.ntk4j.report.RunReport.fmt;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.google.gson.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.metrics.NeuralCollapse;
import org.ntk4j.model.Forward;
import org.ntk4j.model.Network;
import org.ntk4j.model.TangentLayer;
import org.ntk4j.report.Plots;
import org.ntk4j.report.ReportSection;
import org.ntk4j.report.RunFolder;
import org.ntk4j.train.Arrays2;
import org.ntk4j.train.Schedule;

/**
 * Training probe: {@link NeuralCollapse} statistics of the penultimate features h(x) of a fixed,
 * class-balanced probe set drawn from the training data (Seleznova et al., Neural (Tangent Kernel) Collapse measures
 * them on training batches), with the classifier's effective weights c_w·W and bias c_b·b (Seleznova et al., Neural
 * (Tangent Kernel) Collapse §2.1: logits W h + b; the output scale κ multiplies both and changes no statistic).
 * Features are computed in eval mode (batch-norm running statistics), in batches. Works on spec-built networks and on
 * DJL blocks ({@link Network#ofBlock}) that end in a {@code Linear} classifier.
 */
public final class NeuralCollapseProbe extends ScheduledProbe {
    private static final int BATCH = 256;
    private final LabelledSet probeSet;

    public NeuralCollapseProbe(LabelledSet probeSet, Schedule schedule) {
        super("nc", schedule);
        this.probeSet = probeSet;
    }

    @Override
    public Map<String, Object> run(Network net, long step, int epoch) {
        Network body = net.features();
        TangentLayer classifier = classifier(net);
        double[][] h = features(body, probeSet);
        double[][] w = matrix(classifier.weight().value(), classifier.weightScale());
        double[] b = classifier.bias() == null ? null : values(classifier.bias().value(), classifier.biasScale());
        NeuralCollapse nc = NeuralCollapse.of(h, probeSet.labels(), w, b);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("nc1", nc.nc1());
        r.put("nc1_papyan", nc.nc1Papyan());
        r.put("nc2", nc.nc2());
        r.put("nc2_equinorm", nc.equinorm());
        r.put("nc3", nc.nc3());
        r.put("nc4", nc.nc4());
        return r;
    }

    @Override
    public ReportSection report() {
        return NeuralCollapseProbe::neuralCollapse;
    }

    /**
     * NC1–NC4 against the step (Seleznova et al., Neural (Tangent Kernel) Collapse, Fig. 2 panes), when the nc probe
     * ran.
     */
    static void neuralCollapse(RunFolder run, List<JsonObject> nc, Map<String, String> summary) {
        double[] x = nc.stream().mapToDouble(r -> r.get("step").getAsDouble()).toArray();
        Map<String, double[]> s = new LinkedHashMap<>();
        s.put("NC1 tr(ΣW ΣB⁺)/C", column(nc, "nc1_papyan"));
        s.put("NC2 (distance to a simplex ETF)", column(nc, "nc2"));
        s.put("NC3 (self-duality)", column(nc, "nc3"));
        s.put("NC4 (classifier ≠ nearest centre)", column(nc, "nc4"));
        Plots.lines(
                run.file("neural-collapse.png"),
                "Neural collapse of the penultimate features (probe set)",
                "step",
                "statistic (0 = collapsed)",
                x,
                s,
                false);
        JsonObject last = nc.get(nc.size() - 1);
        summary.put(
                "NC1 / NC2 / NC3 / NC4 at end",
                fmt(last.get("nc1_papyan").getAsDouble()) + " / "
                        + fmt(last.get("nc2").getAsDouble()) + " / "
                        + fmt(last.get("nc3").getAsDouble()) + " / "
                        + fmt(last.get("nc4").getAsDouble()));
    }

    /** The final dense layer (the classifier of {@link Network#features()}): {@link Network#classifier()}. */
    public static TangentLayer classifier(Network net) {
        return net.classifier();
    }

    /** h(x_i) for every probe sample, [N][n]. */
    public static double[][] features(Network body, LabelledSet data) {
        int n = data.size();
        double[][] h = new double[n][];
        for (int from = 0; from < n; from += BATCH) {
            int to = Math.min(n, from + BATCH);
            // the scope also closes what ops on parameters attach to the model's manager
            try (ai.djl.ndarray.NDScope scope = new ai.djl.ndarray.NDScope();
                    NDManager m = body.manager().newSubManager()) {
                NDArray x = Arrays2.inputs(m, body, data, from, to);
                double[][] part = matrix(body.forward(x, Forward.eval(m)).reshape(to - from, -1), 1.0); // in m: freed
                System.arraycopy(part, 0, h, from, part.length);
            }
        }
        return h;
    }

    /** scale·A as a Java matrix (rows × cols of a 2-D array). */
    public static double[][] matrix(NDArray a, double scale) {
        int rows = (int) a.getShape().get(0);
        int cols = (int) a.getShape().get(1);
        double[] v = values(a, scale);
        double[][] out = new double[rows][];
        for (int i = 0; i < rows; i++) {
            out[i] = java.util.Arrays.copyOfRange(v, i * cols, (i + 1) * cols);
        }
        return out;
    }

    /** scale·a flattened, read on the host in the array's own type (a toType copy would stay attached to the model's manager). */
    public static double[] values(NDArray a, double scale) {
        if (a.getDataType() == DataType.FLOAT64) {
            double[] v = a.toDoubleArray();
            for (int i = 0; i < v.length; i++) {
                v[i] *= scale;
            }
            return v;
        }
        float[] f = a.toFloatArray();
        double[] v = new double[f.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = scale * f[i];
        }
        return v;
    }
}
