package org.ntk4j.spark;

import ai.djl.engine.Engine;
import ai.djl.engine.EngineException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.ntk4j.UserException;

/**
 * What a cluster lacks, said in one line: libtorch on the driver or on an executor, the Java 17 module opens Spark
 * needs in the driver's JVM. The libtorch of the tests and of a single machine comes from DJL's natives jar
 * ({@value #NATIVES_JAR}); a cluster's executors get it from {@code --jars} or from a libtorch folder named by
 * {@code PYTORCH_LIBRARY_PATH} in their environment.
 */
final class ClusterChecks {
    /** DJL's CPU natives jar for DJL 0.35's PyTorch 2.7.1, as Maven resolves it. */
    static final String NATIVES_JAR = "pytorch-native-cpu-2.7.1-linux-x86_64.jar";

    /** Where the natives jar is after any build of ntk4j. */
    static final String NATIVES_DIR = "~/.m2/repository/ai/djl/pytorch/pytorch-native-cpu/2.7.1/";

    /**
     * The packages Spark 3.5 opens itself under {@code spark-submit} (its {@code JavaModuleOptions}) and reaches
     * reflectively on the driver; a driver JVM started without them (Java 17, {@code --deploy-mode cluster}) dies
     * creating the SparkContext ({@code IllegalAccessError ... sun.nio.ch.DirectBuffer}).
     */
    static final List<String> SPARK_OPENS = List.of(
            "java.lang",
            "java.lang.invoke",
            "java.lang.reflect",
            "java.io",
            "java.net",
            "java.nio",
            "java.util",
            "java.util.concurrent",
            "java.util.concurrent.atomic",
            "sun.nio.ch",
            "sun.nio.cs",
            "sun.security.action",
            "sun.util.calendar");

    private static boolean loaded;

    private ClusterChecks() {}

    /**
     * Loads libtorch in this JVM, once; returns the seconds the first load took (0 once loaded).
     *
     * @throws EngineException or {@link UnsatisfiedLinkError} as DJL does when libtorch cannot be found or loaded
     */
    static synchronized double loadLibtorch() {
        if (loaded) {
            return 0;
        }
        long t0 = System.nanoTime();
        Engine.getEngine("PyTorch");
        loaded = true;
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Whether {@code t} (or a cause) is DJL failing to find or load libtorch. */
    static boolean isLibtorchMissing(Throwable t) {
        for (Throwable x = t; x != null; x = x.getCause()) {
            if (x instanceof EngineException || x instanceof UnsatisfiedLinkError) {
                return true;
            }
        }
        return false;
    }

    /** The one line for an executor ({@code host}) without libtorch: the two ways to supply it. */
    static String libtorchMissingOnExecutor(String host, Throwable e) {
        return "libtorch (PyTorch's native library) cannot be loaded on executor " + host + " " + djlSays(e)
                + ": give the executors DJL's natives jar (spark-submit --jars " + NATIVES_JAR + ", in " + NATIVES_DIR
                + ") or a libtorch 2.7.1 folder on every node (--conf spark.executorEnv.PYTORCH_LIBRARY_PATH=DIR/lib"
                + " --conf spark.executorEnv.PYTORCH_VERSION=2.7.1 --conf spark.executorEnv.PYTORCH_FLAVOR=cpu|cu128)";
    }

    /** The one line for a driver without libtorch (the driver builds the network once to plan). */
    static String libtorchMissingOnDriver(Throwable e) {
        return "libtorch (PyTorch's native library) cannot be loaded on the driver " + djlSays(e)
                + ": put DJL's natives jar on the driver's class path (spark-submit --driver-class-path " + NATIVES_JAR
                + " --jars " + NATIVES_JAR + ", in " + NATIVES_DIR + ") or set PYTORCH_LIBRARY_PATH, PYTORCH_VERSION"
                + " and PYTORCH_FLAVOR in the driver's environment to a libtorch 2.7.1 folder";
    }

    /** Checks the driver's libtorch: a {@link UserException} with the one line when it cannot be loaded. */
    static void requireLibtorchOnDriver() {
        try {
            loadLibtorch();
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            if (isLibtorchMissing(e)) {
                throw new UserException(libtorchMissingOnDriver(e), e);
            }
            throw e;
        }
    }

    /** DJL's reason in parentheses, without its advice to re-run online (which a cluster's offline nodes cannot). */
    private static String djlSays(Throwable e) {
        Set<String> parts = new LinkedHashSet<>();
        boolean offline = false;
        for (Throwable x = e; x != null; x = x.getCause()) {
            String m = x.getMessage();
            if (m == null || m.isBlank()) {
                continue;
            }
            String first = m.lines().findFirst().orElse(m).trim();
            if (first.startsWith("Offline mode is enabled")) {
                offline = true;
            } else {
                parts.add(first);
            }
        }
        if (offline) {
            return "(no natives jar on its class path and no PYTORCH_LIBRARY_PATH; with ai.djl.offline=true DJL does"
                    + " not download one)";
        }
        return parts.isEmpty() ? "" : "(DJL: " + String.join(": ", parts) + ")";
    }

    /** The packages of {@link #SPARK_OPENS} this JVM does not open to the unnamed modules (empty when all are). */
    static List<String> missingOpens() {
        Module base = Object.class.getModule();
        Module unnamed = ClusterChecks.class.getClassLoader().getUnnamedModule();
        List<String> missing = new ArrayList<>();
        for (String p : SPARK_OPENS) {
            if (!base.isOpen(p, unnamed)) {
                missing.add(p);
            }
        }
        return missing;
    }

    /** The one line for a driver JVM without Spark's opens: which option adds them. */
    static String opensMissing(List<String> missing) {
        return "this driver JVM (Java " + Runtime.version().feature() + ") does not open " + String.join(", ", missing)
                + " of java.base, which Spark needs (spark-submit adds them in client mode, not to a driver started by"
                + " the cluster in --deploy-mode cluster): add --conf spark.driver.extraJavaOptions='"
                + opensOption() + "' (the list in the README's Spark section)";
    }

    /** The JVM options that open {@link #SPARK_OPENS}, as Spark 3.5's JavaModuleOptions writes them. */
    static String opensOption() {
        StringBuilder b = new StringBuilder();
        for (String p : SPARK_OPENS) {
            b.append("--add-opens=java.base/").append(p).append("=ALL-UNNAMED ");
        }
        return b.append("-Djdk.reflect.useDirectMethodHandle=false").toString();
    }
}
