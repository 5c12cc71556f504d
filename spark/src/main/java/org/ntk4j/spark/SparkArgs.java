package org.ntk4j.spark;

import ai.djl.ndarray.types.DataType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.ntk4j.OptionException;
import org.ntk4j.OptionKey;
import org.ntk4j.UserException;
import org.ntk4j.approx.ApproxError;
import org.ntk4j.approx.ApproxSpec;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.util.Numbers;

/**
 * The command line of {@link SparkKernel#main}: the options of {@code ntk4j kernel} that a sharded kernel
 * supports, plus the cluster's ({@code --data-root}, {@code --task-memory}, {@code --tile},
 * {@code --shard-size}, {@code --dry-run}, {@code --executors}).
 */
final class SparkArgs {
    static final String USAGE = String.join(
            "\n",
            "usage: spark-submit --class org.ntk4j.spark.SparkKernel ntk4j-spark-all.jar [options]",
            "  --model SPEC          model spec file or name in models/ (required)",
            "  --weights FILE        weights.npz of a run (Hadoop URI or local path; default: fresh init from --seed)",
            "  --seed S              initialisation seed (default 0)",
            "  --dataset NAME        mnist, fashion-mnist, cifar10 (from --data-root), mnist-subset (default)",
            "  --n N                 training samples, the first N (default 100)",
            "  --test M              also Θ(X2, X1) on the first M test samples (default 0)",
            "  --pad P               zero-pad images by P pixels per side (e.g. 2: MNIST 28x28 to 32x32)",
            "  --mode MODE           trace | full | diagonal (default trace)",
            "  --per-layer           also Θ_l for each parameterised layer",
            "  --dtype T             float32 | float64 (default float32)",
            "  --out URI             the shard store folder: file://, hdfs://, s3a:// or a local path (required)",
            "  --data-root URI       the folder holding <dataset>/ (as ntk4j's data directory)",
            "  --task-memory SIZE    memory of one task's tiles, e.g. 2g (default 2g); decides the tile",
            "  --tile T              samples per tile, fixed (default: the largest --task-memory allows)",
            "  --shard-size S        samples per shard side, whole tiles (default: the largest --task-memory allows)",
            "  --approx nystrom:M    the exact blocks of the Nyström approximation with M uniform landmarks instead:",
            "                        C = K(X, L), C* = K(X*, L) in row shards, and the held-out K_SS of its error;",
            "                        'ntk4j kernel assemble DIR' writes the features of 'ntk4j kernel --approx'",
            "  --approx-holdout H    training images the Nyström error is measured on (default 500)",
            "  --dry-run             print the plan (shards, bytes, estimated time) and compute nothing",
            "  --executors K         task slots of the cluster (default: the context's parallelism): the plan has",
            "                        at least 4 shards per slot; the dry run's estimate is for K slots, from a tile",
            "                        pair timed in one Spark task, on an executor's device",
            "Re-running the same command skips the shards already written with a valid checksum.");

    /** The parsed options; {@code help} when --help was given. */
    record Parsed(SparkKernelConfig config, boolean help) {}

    /** The settings of the Spark job beyond a kernel request's ({@link SparkKernelConfig}). */
    enum Option implements OptionKey {
        EXECUTORS
    }

    private SparkArgs() {}

    /** The option that sets the library setting {@code key}: the request's memory is one task's. */
    static String flag(String key) {
        return "memory".equals(key) ? "--task-memory" : "--" + OptionKey.kebab(key);
    }

    /** The message of {@code e} with settings named by this command line's options. */
    static String message(UserException e) {
        return e instanceof OptionException o ? o.message(SparkArgs::flag) : e.getMessage();
    }

    /** Reads {@code args} into {@code v} (flags as "true"); returns the arguments that are no option. */
    private static List<String> readOptions(
            String[] args, List<String> flags, List<String> valued, Map<String, String> v) {
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String val = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                val = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            if (flags.contains(a)) {
                v.put(a, "true");
            } else if (valued.contains(a)) {
                if (val == null) {
                    if (i + 1 >= args.length) {
                        throw new UserException(a + " needs a value");
                    }
                    val = args[++i];
                }
                v.put(a, val);
            } else {
                rest.add(a);
            }
        }
        return rest;
    }

    static Parsed parse(String[] args) {
        Map<String, String> v = new LinkedHashMap<>();
        List<String> flags = List.of("--per-layer", "--dry-run", "--help", "-h");
        List<String> valued = List.of(
                "--model",
                "--weights",
                "--seed",
                "--dataset",
                "--n",
                "--test",
                "--pad",
                "--mode",
                "--dtype",
                "--out",
                "--data-root",
                "--task-memory",
                "--tile",
                "--shard-size",
                "--executors",
                "--approx",
                "--approx-holdout");
        List<String> rest = readOptions(args, flags, valued, v);
        if (!rest.isEmpty()) {
            throw new UserException("unknown option or argument '" + rest.get(0) + "' (see --help)");
        }
        if (v.containsKey("--help") || v.containsKey("-h")) {
            return new Parsed(null, true);
        }
        if (!v.containsKey("--model") || !v.containsKey("--out")) {
            throw new UserException("--model and --out are required (see --help)");
        }
        SparkKernelConfig c;
        try {
            KernelRequest request = KernelRequest.builder()
                    .model(v.get("--model"))
                    .seed(longOf(v, "--seed", 0))
                    .dataset(v.getOrDefault("--dataset", "mnist-subset"))
                    .n((int) longOf(v, "--n", 100))
                    .test((int) longOf(v, "--test", 0))
                    .pad(v.containsKey("--pad") ? (int) longOf(v, "--pad", 0) : null)
                    .mode(enumOf(Mode.class, v.getOrDefault("--mode", "trace"), "--mode"))
                    .method(Method.AUTO)
                    .perLayer(v.containsKey("--per-layer"))
                    .dtype(dtype(v.getOrDefault("--dtype", "float32")))
                    .memory(
                            v.containsKey("--task-memory")
                                    ? bytes(v.get("--task-memory"), "--task-memory")
                                    : SparkKernelConfig.DEFAULT_TASK_MEMORY)
                    .tile(v.containsKey("--tile") ? (int) longOf(v, "--tile", 0) : null)
                    .build();
            c = new SparkKernelConfig(
                    request,
                    v.get("--weights"),
                    v.get("--out"),
                    v.get("--data-root"),
                    v.containsKey("--shard-size") ? (int) longOf(v, "--shard-size", 0) : null,
                    v.containsKey("--dry-run"),
                    v.containsKey("--executors") ? (int) longOf(v, "--executors", 0) : null,
                    null);
            if (v.containsKey("--approx")) {
                c = c.withApprox(ApproxSpec.parse(v.get("--approx")), (int)
                        longOf(v, "--approx-holdout", ApproxError.DEFAULT_ROWS));
            } else if (v.containsKey("--approx-holdout")) {
                throw new UserException("--approx-holdout applies with --approx");
            }
        } catch (OptionException e) {
            throw new UserException(message(e), e);
        }
        return new Parsed(c, false);
    }

    private static long longOf(Map<String, String> v, String key, long def) {
        String s = v.get(key);
        if (s == null) {
            return def;
        }
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new UserException(key + " must be an integer (got " + s + ")");
        }
    }

    static DataType dtype(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "float32" -> DataType.FLOAT32;
            case "float64" -> DataType.FLOAT64;
            default -> throw new UserException("--dtype must be float32 or float64 (got " + s + ")");
        };
    }

    static <E extends Enum<E>> E enumOf(Class<E> type, String v, String option) {
        try {
            return Enum.valueOf(type, v.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new UserException(option + " must be one of "
                    + java.util.Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT) + " (got " + v + ")");
        }
    }

    /** "512m", "4g", "1000000" → bytes. */
    static long bytes(String s, String option) {
        long b = Numbers.parseSize(s);
        if (b < 0) {
            throw new UserException(option + " must be a size like 512m or 4g (got " + s + ")");
        }
        return b;
    }
}
