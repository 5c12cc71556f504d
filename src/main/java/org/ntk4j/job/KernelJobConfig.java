package org.ntk4j.job;

import ai.djl.ndarray.types.DataType;
import java.nio.file.Path;
import org.ntk4j.UserException;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.report.Npz;

/**
 * What a {@link KernelJob} computes: the empirical NTK Θ(X1, X1) of a model on N training samples
 * (and Θ(X2, X1) on M test samples), written as NPZ with a JSON sidecar.
 *
 * @param model model spec file or a name in models/
 * @param weights weights.npz of a run; null = fresh initialisation from {@code seed}
 * @param seed initialisation seed (also the class-balanced sample's seed with {@code perClass})
 * @param dataset dataset name
 * @param n number of training samples, the first N (ignored with {@code perClass})
 * @param perClass instead of the first N: this many samples of every class, ordered by class; null = off
 * @param test number of test samples for the test×train kernel; 0 = none
 * @param pad zero-pad images by this many pixels per side; null = none
 * @param mode full, trace or diagonal over outputs
 * @param method how each layer's kernel is computed
 * @param dtype FLOAT32 or FLOAT64
 * @param meanNormalised mean instead of sum over traced outputs (neural-tangents' convention)
 * @param memory memory budget for tiles, in bytes
 * @param perLayer also write Θ_l for each parameterised layer
 * @param features the last-layer-features kernel Θ^h instead (Seleznova et al., Neural (Tangent Kernel) Collapse, §3: the kernel of the penultimate features)
 * @param factorKernels also write each dense layer's forward and backward kernels (Lou, Mingard & Hayou, Equilibrium Hypothesis, Eq. 7)
 * @param explain report the method chosen per layer with its FLOP estimates
 * @param out the output .npz file; the sidecar is the same name with .json
 * @param dataDir the data directory
 * @param force replace an existing output (and the kernel sidecar it wrote); without it an existing
 *     file is an error. A {@code <stem>.json} that is not an ntk4j kernel sidecar is never replaced.
 * @param spillDir where kernels too large for the heap are accumulated as float32 files; null =
 *     beside the output
 * @param format NPZ (one zip, entries stored) or NPY (a directory of .npy files; the sidecar is DIR.json)
 * @param compress deflate the NPZ entries (smaller, ~25 MB/s instead of disk speed)
 * @param tile samples per tile, fixed (null: the largest the memory budget allows); the tile grid decides the last
 *     bits of every value, so a kernel computed with the tile of a shard plan equals its assembled shards bit for
 *     bit ({@link org.ntk4j.kernel.Ntk#tile(int)})
 */
public record KernelJobConfig(
        String model,
        Path weights,
        long seed,
        String dataset,
        int n,
        Integer perClass,
        int test,
        Integer pad,
        Mode mode,
        Method method,
        DataType dtype,
        boolean meanNormalised,
        long memory,
        boolean perLayer,
        boolean features,
        boolean factorKernels,
        boolean explain,
        Path out,
        Path dataDir,
        boolean force,
        Path spillDir,
        Npz.Format format,
        boolean compress,
        Integer tile) {
    /** As the canonical constructor, with the tile chosen from the memory budget. */
    public KernelJobConfig(
            String model,
            Path weights,
            long seed,
            String dataset,
            int n,
            Integer perClass,
            int test,
            Integer pad,
            Mode mode,
            Method method,
            DataType dtype,
            boolean meanNormalised,
            long memory,
            boolean perLayer,
            boolean features,
            boolean factorKernels,
            boolean explain,
            Path out,
            Path dataDir,
            boolean force,
            Path spillDir,
            Npz.Format format,
            boolean compress) {
        this(
                model,
                weights,
                seed,
                dataset,
                n,
                perClass,
                test,
                pad,
                mode,
                method,
                dtype,
                meanNormalised,
                memory,
                perLayer,
                features,
                factorKernels,
                explain,
                out,
                dataDir,
                force,
                spillDir,
                format,
                compress,
                null);
    }

    /** Without --force, spilling beside the output, one NPZ with stored (uncompressed) entries. */
    public KernelJobConfig(
            String model,
            Path weights,
            long seed,
            String dataset,
            int n,
            Integer perClass,
            int test,
            Integer pad,
            Mode mode,
            Method method,
            DataType dtype,
            boolean meanNormalised,
            long memory,
            boolean perLayer,
            boolean features,
            boolean factorKernels,
            boolean explain,
            Path out,
            Path dataDir) {
        this(
                model,
                weights,
                seed,
                dataset,
                n,
                perClass,
                test,
                pad,
                mode,
                method,
                dtype,
                meanNormalised,
                memory,
                perLayer,
                features,
                factorKernels,
                explain,
                out,
                dataDir,
                false,
                null,
                Npz.Format.NPZ,
                false,
                null);
    }

    /** This config with a fixed tile (null: chosen from the memory budget). */
    public KernelJobConfig withTile(Integer samples) {
        return new KernelJobConfig(
                model,
                weights,
                seed,
                dataset,
                n,
                perClass,
                test,
                pad,
                mode,
                method,
                dtype,
                meanNormalised,
                memory,
                perLayer,
                features,
                factorKernels,
                explain,
                out,
                dataDir,
                force,
                spillDir,
                format,
                compress,
                samples);
    }

    public KernelJobConfig {
        if (dtype != DataType.FLOAT32 && dtype != DataType.FLOAT64) {
            throw new UserException("--dtype must be float32 or float64 (got " + dtype + ")");
        }
        if (memory <= 0) {
            throw new UserException("--memory must be a size like 512m or 4g (got " + memory + ")");
        }
        if (n < 1) {
            throw new UserException("--n must be >= 1 (got " + n + ")");
        }
        if (test < 0) {
            throw new UserException("--test must be >= 0 (got " + test + ")");
        }
        if (perClass != null && perClass < 1) {
            throw new UserException("--per-class must be >= 1 (got " + perClass + ")");
        }
        if (pad != null && pad < 0) {
            throw new UserException("--pad must be >= 0 (got " + pad + ")");
        }
        if (model == null || dataset == null || mode == null || method == null || out == null) {
            throw new UserException("--model, --dataset, --mode, --method and --out are required");
        }
        if (tile != null && tile < 1) {
            throw new UserException("--tile must be >= 1 (got " + tile + ")");
        }
        if (format == null) {
            format = Npz.Format.NPZ;
        }
        if (format == Npz.Format.NPZ && !out.getFileName().toString().endsWith(".npz")) {
            throw new UserException("--out must name a .npz file (got " + out + ")");
        }
    }
}
