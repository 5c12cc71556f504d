package org.ntk4j.job;

import com.google.gson.annotations.SerializedName;
import java.util.Map;
import java.util.SortedMap;
import org.ntk4j.spec.ModelSpec;

/**
 * The JSON sidecar of a kernel written by {@link KernelJob} ({@code K.json} beside {@code K.npz}, and the NPZ's
 * entry {@code meta.json}): what was computed, how, in how long, the kernel's metrics, and the output's checksum.
 * Keys in snake case; absent values (no weights, no test kernel, the other output format) are left out.
 *
 * @param format {@value org.ntk4j.io.KernelFiles#FORMAT}
 * @param model the resolved model spec
 * @param seed initialisation seed
 * @param kernel "ntk", or the features kernel with its outputs
 * @param weights the weights file; null = a fresh initialisation
 * @param dataset dataset name
 * @param n training samples N
 * @param test test samples M
 * @param mode trace, full or diagonal
 * @param normalisation what was applied: "mean" (a trace kernel divided by O) or "sum"
 * @param normalisationNote why a mean normalisation asked for was not applied; null when none
 * @param dtype float32 or float64
 * @param device where it was computed
 * @param tf32 whether float32 products on the GPU could round to TF32 ({@code --tf32}; "off (no effect on the CPU)")
 * @param parameters the network's parameters
 * @param memoryBudgetBytes the memory budget
 * @param methods the method per layer
 * @param secondsTrainKernel seconds of Θ(X1, X1)
 * @param phasesTrainKernel its seconds per phase
 * @param secondsTestKernel seconds of Θ(X2, X1); null without test samples
 * @param metrics the kernel's metrics ({@link org.ntk4j.metrics.KernelMetrics})
 * @param secondsTotal seconds of the whole job until the sidecar was made
 * @param peakHeapBytes the peak Java heap
 * @param peakRssBytes the peak resident set size (-1 when unknown)
 * @param npyDir with NPY output: the directory's name
 * @param npySha256 with NPY output: SHA-256 of each file, by name
 * @param npz with NPZ output: the file's name
 * @param npzSha256 with NPZ output: its SHA-256
 */
public record KernelSidecar(
        String format,
        ModelSpec model,
        long seed,
        String kernel,
        String weights,
        String dataset,
        int n,
        int test,
        String mode,
        String normalisation,
        @SerializedName("normalisation_note") String normalisationNote,
        String dtype,
        String device,
        String tf32,
        long parameters,
        @SerializedName("memory_budget_bytes") long memoryBudgetBytes,
        Map<String, String> methods,
        @SerializedName("seconds_train_kernel") double secondsTrainKernel,
        @SerializedName("phases_train_kernel") Map<String, Double> phasesTrainKernel,
        @SerializedName("seconds_test_kernel") Double secondsTestKernel,
        Map<String, Object> metrics,
        @SerializedName("seconds_total") double secondsTotal,
        @SerializedName("peak_heap_bytes") long peakHeapBytes,
        @SerializedName("peak_rss_bytes") long peakRssBytes,
        @SerializedName("npy_dir") String npyDir,
        @SerializedName("npy_sha256") SortedMap<String, String> npySha256,
        String npz,
        @SerializedName("npz_sha256") String npzSha256) {
    /** This sidecar naming an NPZ output file and its checksum. */
    public KernelSidecar withNpz(String file, String sha256) {
        return withOutput(null, null, file, sha256);
    }

    /** This sidecar naming an NPY output directory and its files' checksums. */
    public KernelSidecar withNpy(String dir, SortedMap<String, String> sha256) {
        return withOutput(dir, sha256, null, null);
    }

    private KernelSidecar withOutput(String npyDir, SortedMap<String, String> npySha256, String npz, String npzSha256) {
        return new KernelSidecar(
                format,
                model,
                seed,
                kernel,
                weights,
                dataset,
                n,
                test,
                mode,
                normalisation,
                normalisationNote,
                dtype,
                device,
                tf32,
                parameters,
                memoryBudgetBytes,
                methods,
                secondsTrainKernel,
                phasesTrainKernel,
                secondsTestKernel,
                metrics,
                secondsTotal,
                peakHeapBytes,
                peakRssBytes,
                npyDir,
                npySha256,
                npz,
                npzSha256);
    }
}
