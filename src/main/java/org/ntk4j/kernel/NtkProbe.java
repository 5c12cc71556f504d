package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Preprocess;
import org.ntk4j.metrics.Alignment;
import org.ntk4j.model.Network;
import org.ntk4j.report.Npz;
import org.ntk4j.report.Plots;
import org.ntk4j.report.RunFolder;
import org.ntk4j.train.Arrays2;
import org.ntk4j.train.Probe;

/**
 * Training probe: the traced NTK of a fixed probe set, per layer, on a {@link org.ntk4j.train.Schedule}
 * (by default at initialisation and at every epoch end); logs the (centred) kernel–target alignment of the total and of each layer, and keeps
 * each kernel as {@code ntk-step<k>.npz} in the run folder.
 */
public final class NtkProbe implements Probe {
    private final Dataset probeSet;
    private final RunFolder run;
    private final float[] targets;
    private final org.ntk4j.train.Schedule schedule;

    public NtkProbe(Dataset probeSet, RunFolder run) {
        this(probeSet, run, org.ntk4j.train.Schedule.parse("epochs"));
    }

    public NtkProbe(Dataset probeSet, RunFolder run, org.ntk4j.train.Schedule schedule) {
        this.probeSet = probeSet;
        this.run = run;
        this.schedule = schedule;
        this.targets = Preprocess.oneHot(probeSet.labels(), probeSet.numClasses());
    }

    @Override
    public String name() {
        return "ntk";
    }

    @Override
    public boolean due(long step, boolean epochEnd) {
        return schedule.due(step, epochEnd);
    }

    @Override
    public Map<String, Object> run(Network net, long step, int epoch) {
        Map<String, Object> r = new LinkedHashMap<>();
        try (NDManager m = net.manager().newSubManager()) {
            long[] shape = new long[net.inputShape().dimension() + 1];
            shape[0] = probeSet.size();
            System.arraycopy(net.inputShape().getShape(), 0, shape, 1, shape.length - 1);
            NDArray x = Arrays2.fromFloats(m, probeSet.features(), new Shape(shape), net.dataType());
            KernelResult k = Ntk.of(net).mode(Mode.TRACE).perLayer().compute(x);
            int c = probeSet.numClasses();
            r.put("alignment", Alignment.alignment(k.total().traced(), targets, c));
            r.put("centered_alignment", Alignment.centeredAlignment(k.total().traced(), targets, c));
            for (Map.Entry<String, KernelMatrix> e : k.layers().entrySet()) {
                r.put("centered_alignment." + e.getKey(), Alignment.centeredAlignment(e.getValue().traced(), targets, c));
            }
            r.put("ntk_seconds", k.seconds());
            Npz npz = new Npz().put("ntk", k.total());
            k.layers().forEach((name, km) -> npz.put("ntk." + name, km));
            npz.put("labels", probeSet.labels(), probeSet.size());
            npz.write(run.file(String.format("ntk-step%06d.npz", step)));
            double[][] sorted = sortedByClass(k.total().traced(), probeSet.labels());
            Plots.heatmap(run.file(step == 0 ? "ntk-heatmap-init.png" : "ntk-heatmap.png"),
                    "NTK of the probe set (sorted by class), epoch " + epoch, sorted);
        }
        return r;
    }

    /** The kernel with rows and columns ordered by class label (stable). */
    static double[][] sortedByClass(double[][] k, int[] labels) {
        Integer[] idx = new Integer[labels.length];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
        }
        java.util.Arrays.sort(idx, java.util.Comparator.comparingInt(i -> labels[i]));
        double[][] s = new double[idx.length][idx.length];
        for (int a = 0; a < idx.length; a++) {
            for (int b = 0; b < idx.length; b++) {
                s[a][b] = k[idx[a]][idx[b]];
            }
        }
        return s;
    }
}
