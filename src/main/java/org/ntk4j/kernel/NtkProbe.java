package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ntk4j.data.Dataset;
import org.ntk4j.data.Preprocess;
import org.ntk4j.metrics.Alignment;
import org.ntk4j.metrics.KernelChange;
import org.ntk4j.metrics.KernelSpectrum;
import org.ntk4j.metrics.LabelAwareness;
import org.ntk4j.model.Network;
import org.ntk4j.report.Npz;
import org.ntk4j.report.Plots;
import org.ntk4j.report.RunFolder;
import org.ntk4j.train.Arrays2;

/**
 * Training probe: the traced NTK of a fixed probe set, per layer, on a {@link org.ntk4j.train.Schedule}
 * (by default at initialisation and at every epoch end). Logs the (centred) kernel–target alignment
 * of the total and of each layer ({@link Alignment}); how far the kernel moved — relative change
 * and kernel distance from the first probe, kernel velocity since the previous probe per step
 * ({@link KernelChange}); its spectrum — leading eigenvalues, effective rank and the fraction of
 * the targets in the top-C eigenvectors ({@link KernelSpectrum}); and its label awareness Θ̄_c/Θ̄_d,
 * Θ̄_n/Θ̄_d ({@link LabelAwareness}, seed 003 eq. (23)). Keeps each kernel as
 * {@code ntk-step<k>.npz} in the run folder; a resumed run reads its first and latest kernels back
 * from there, so the change and velocity series continue unbroken.
 */
public final class NtkProbe extends org.ntk4j.train.ScheduledProbe {
    private final Dataset probeSet;
    private final RunFolder run;
    private final float[] targets;
    /** Leading eigenvalues logged per probe. */
    static final int EIGENVALUES = 64;
    private double[][] initial;
    private double[][] previous;
    private long previousStep = -1;

    public NtkProbe(Dataset probeSet, RunFolder run) {
        this(probeSet, run, org.ntk4j.train.Schedule.parse("epochs"));
    }

    public NtkProbe(Dataset probeSet, RunFolder run, org.ntk4j.train.Schedule schedule) {
        super("ntk", schedule);
        this.probeSet = probeSet;
        this.run = run;
        this.targets = probeSet.isRegression() ? probeSet.targets() : Preprocess.oneHot(probeSet.labels(), probeSet.numClasses());
    }


    @Override
    public Map<String, Object> run(Network net, long step, int epoch) {
        Map<String, Object> r = new LinkedHashMap<>();
        try (NDManager m = net.manager().newSubManager()) {
            NDArray x = Arrays2.inputs(m, net, probeSet, 0, probeSet.size());
            KernelResult k = Ntk.of(net).mode(Mode.TRACE).perLayer().compute(x);
            int c = probeSet.isRegression() ? probeSet.targetOutputs() : probeSet.numClasses(); // columns of Y
            double[][] traced = k.total().traced(); // one N×N copy, used by every metric below
            r.put("alignment", Alignment.alignment(traced, targets, c));
            r.put("centered_alignment", Alignment.centeredAlignment(traced, targets, c));
            for (Map.Entry<String, KernelMatrix> e : k.layers().entrySet()) {
                r.put("centered_alignment." + e.getKey(), Alignment.centeredAlignment(e.getValue().traced(), targets, c));
            }
            r.put("ntk_seconds", k.seconds());
            if (initial == null) {
                restore(step);
            }
            if (initial == null) {
                initial = traced;
            }
            r.put("relative_change_from_init", KernelChange.relativeChange(traced, initial));
            r.put("kernel_distance_from_init", KernelChange.distance(traced, initial));
            if (previous != null && step > previousStep) {
                r.put("kernel_velocity", KernelChange.velocity(previous, traced, step - previousStep));
            }
            previous = traced;
            previousStep = step;
            KernelSpectrum spectrum = KernelSpectrum.of(traced);
            double[] ev = spectrum.eigenvalues();
            r.put("effective_rank", spectrum.effectiveRank());
            r.put("target_power_top_classes", spectrum.cumulativeTargetPower(targets, c)[Math.min(c, ev.length) - 1]);
            r.put("eigenvalues", java.util.Arrays.copyOf(ev, Math.min(EIGENVALUES, ev.length)));
            try {
                LabelAwareness la = LabelAwareness.of(traced, probeSet.labels());
                r.put("theta_c_over_d", la.cOverD());
                r.put("theta_n_over_d", la.nOverD());
            } catch (org.ntk4j.UserException e) {
                // Θ̄_c needs two probe samples of every class (--probe-set 1): not defined, not logged
            }
            Npz npz = new Npz().put("ntk", k.total());
            k.layers().forEach((name, km) -> npz.put("ntk." + name, km));
            npz.put("labels", probeSet.labels(), probeSet.size());
            npz.write(run.file(String.format("ntk-step%06d.npz", step)));
            double[][] sorted = sortedByClass(traced, probeSet.labels());
            Plots.heatmap(run.file(step == 0 ? "ntk-heatmap-init.png" : "ntk-heatmap.png"),
                    "NTK of the probe set (sorted by class), epoch " + epoch, sorted);
        }
        return r;
    }

    /** After a resume: the first kernel of the run and the latest one before {@code step}, from their NPZ files. */
    private void restore(long step) {
        java.util.TreeMap<Long, java.nio.file.Path> kept = new java.util.TreeMap<>();
        java.util.regex.Pattern name = java.util.regex.Pattern.compile("ntk-step(\\d+)\\.npz");
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(run.dir())) {
            files.forEach(f -> {
                java.util.regex.Matcher m = name.matcher(f.getFileName().toString());
                if (m.matches() && Long.parseLong(m.group(1)) < step) {
                    kept.put(Long.parseLong(m.group(1)), f);
                }
            });
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        if (kept.isEmpty()) {
            return;
        }
        initial = readKernel(kept.firstEntry().getValue());
        previous = readKernel(kept.lastEntry().getValue());
        previousStep = kept.lastKey();
    }

    private double[][] readKernel(java.nio.file.Path file) {
        try (NDManager m = NDManager.newBaseManager();
                java.io.InputStream is = new java.io.BufferedInputStream(java.nio.file.Files.newInputStream(file))) {
            for (NDArray a : ai.djl.ndarray.NDList.decode(m, is)) {
                if ("ntk".equals(a.getName())) {
                    int n = probeSet.size();
                    double[] v = a.toType(ai.djl.ndarray.types.DataType.FLOAT64, false).toDoubleArray();
                    if (v.length != (long) n * n) {
                        throw new org.ntk4j.UserException(file + ": kernel has " + v.length + " entries; the probe set needs "
                                + n + "×" + n + " (was the run resumed with another --probe-set?)");
                    }
                    double[][] k = new double[n][];
                    for (int i = 0; i < n; i++) {
                        k[i] = java.util.Arrays.copyOfRange(v, i * n, (i + 1) * n);
                    }
                    return k;
                }
            }
        } catch (java.io.IOException | IllegalArgumentException e) {
            throw new org.ntk4j.UserException(file + ": cannot read the probe kernel (" + e.getMessage() + ")");
        }
        throw new org.ntk4j.UserException(file + ": no 'ntk' entry");
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
