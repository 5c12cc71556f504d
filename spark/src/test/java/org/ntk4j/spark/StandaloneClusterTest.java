package org.ntk4j.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.request.KernelRequest;
import org.ntk4j.shard.ShardAssembler;

/**
 * The kernel job on a real Spark standalone cluster on 127.0.0.1: a master and two workers, each its own JVM started
 * from Maven's Spark jars ({@code org.apache.spark.deploy.master.Master}, {@code org.apache.spark.deploy.worker.Worker},
 * as {@code sbin/start-master.sh} and {@code start-worker.sh} start them), and the job submitted through {@code
 * org.apache.spark.deploy.SparkSubmit} (the class {@code bin/spark-submit} runs) as an application jar. The workers
 * launch their executors as a Spark distribution's would, from a Spark home whose {@code jars/} is empty and
 * {@code SPARK_DIST_CLASSPATH} (the "Hadoop free" build's way) listing Maven's jars: ntk4j's Spark classes reach the
 * executors only in the submitted jar. The assembled kernel equals the single-machine one ({@code ntk4j kernel} with
 * the same tile) byte for byte, and both workers launched an executor. Six JVMs: 156 s (127 s of it spark-submit) on
 * the 2-core machine under a load of 17, not yet timed idle; tagged {@code cluster}, so that {@code
 * -DexcludedGroups=cluster} leaves it out of a quick run.
 */
@Tag("cluster")
class StandaloneClusterTest {
    private static final int N = 24;
    private static final int M = 8;
    private static final int TILE = 4;

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @Test
    void kernelSubmittedToAMasterAndTwoWorkersEqualsTheSingleMachineKernel() throws Exception {
        long t0 = System.nanoTime();
        Path data = dir.resolve("data");
        SparkFixtures.mnistDir(data, 40, 12);
        Path model = dir.resolve("tiny-mlp.json");
        try (InputStream in = StandaloneClusterTest.class.getResourceAsStream("/tiny-mlp.json")) {
            Files.copy(in, model);
        }
        String jars = Arrays.stream(classPath().split(File.pathSeparator))
                .filter(e -> e.endsWith(".jar"))
                .collect(Collectors.joining(File.pathSeparator));
        Path app = applicationJar(Path.of("target", "classes"), dir.resolve("ntk4j-spark-app.jar"));
        try {
            String master = startCluster(jars);
            long submittedAt = System.nanoTime();
            Path store = dir.resolve("store");
            Process driver = start("driver", jars, Map.of(), submitCommand(master, app, model, data, store));
            if (!driver.waitFor(540, TimeUnit.SECONDS)) {
                driver.destroyForcibly();
                throw new AssertionError("spark-submit did not finish in 540 s\n" + log("driver"));
            }
            String out = log("driver");
            assertEquals(0, driver.exitValue(), out);
            double submitted = (System.nanoTime() - submittedAt) / 1e9;
            assertTrue(out.contains("0 skipped"), out);
            // both workers ran an executor (its stderr in the worker's work folder)
            for (int w = 1; w <= 2; w++) {
                try (Stream<Path> logs = Files.walk(dir.resolve("work" + w))) {
                    assertTrue(
                            logs.anyMatch(p -> p.getFileName().toString().equals("stderr")),
                            "worker " + w + " launched no executor\n" + log("worker" + w));
                }
            }
            Path assembled = dir.resolve("assembled");
            ShardAssembler.assemble(store, ShardAssembler.Layout.NPY, assembled, true, false);
            assertSameKernels(assembled, singleMachine(model, data, dir.resolve("reference")));
            System.out.printf(
                    "standalone cluster (master + 2 workers): spark-submit %.1f s, whole test %.1f s%n",
                    submitted, (System.nanoTime() - t0) / 1e9);
        } finally {
            for (int i = started.size() - 1; i >= 0; i--) {
                started.get(i).destroy();
                started.get(i).waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** A master and two workers of one core and 1 GiB each, on 127.0.0.1; returns the master's URL. */
    private String startCluster(String jars) throws Exception {
        Path home = Files.createDirectories(dir.resolve("spark-home").resolve("jars"))
                .getParent();
        int port = freePort();
        String master = "spark://127.0.0.1:" + port;
        start(
                "master",
                jars,
                Map.of(),
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--webui-port",
                "0");
        long end = System.currentTimeMillis() + 120_000;
        while (!listening(port)) {
            assertTrue(started.get(0).isAlive() && System.currentTimeMillis() < end, log("master"));
            Thread.sleep(250);
        }
        // a distribution's Spark home: jars/ (empty here), its Scala version, and the jars it leaves to the site
        Map<String, String> workerEnv =
                Map.of("SPARK_HOME", home.toString(), "SPARK_SCALA_VERSION", "2.12", "SPARK_DIST_CLASSPATH", jars);
        for (int w = 1; w <= 2; w++) {
            Path work = Files.createDirectories(dir.resolve("work" + w));
            start(
                    "worker" + w,
                    jars,
                    workerEnv,
                    "org.apache.spark.deploy.worker.Worker",
                    master,
                    "--host",
                    "127.0.0.1",
                    "--cores",
                    "1",
                    "--memory",
                    "1g",
                    "--webui-port",
                    "0",
                    "--work-dir",
                    work.toString());
        }
        return master;
    }

    /** spark-submit's main class and arguments: the application jar in client mode, two executors of one core. */
    private static String[] submitCommand(String master, Path app, Path model, Path data, Path store) {
        String executorOptions = ClusterChecks.opensOption()
                + " -Dai.djl.offline=true -Dai.djl.pytorch.num_threads=1 -Dai.djl.pytorch.num_interop_threads=1";
        return new String[] {
            "org.apache.spark.deploy.SparkSubmit",
            "--master",
            master,
            "--deploy-mode",
            "client",
            "--class",
            SparkKernel.class.getName(),
            "--executor-memory",
            "600m",
            "--total-executor-cores",
            "2",
            "--conf",
            "spark.executor.cores=1",
            "--conf",
            "spark.executor.extraJavaOptions=" + executorOptions,
            "--conf",
            "spark.driver.host=127.0.0.1",
            "--conf",
            "spark.driver.bindAddress=127.0.0.1",
            "--conf",
            "spark.ui.enabled=false",
            app.toString(),
            "--model",
            model.toString(),
            "--dataset",
            "mnist",
            "--n",
            Integer.toString(N),
            "--test",
            Integer.toString(M),
            "--mode",
            "full",
            "--per-layer",
            "--dtype",
            "float64",
            "--tile",
            Integer.toString(TILE),
            "--shard-size",
            "8",
            "--executors",
            "2",
            "--data-root",
            data.toUri().toString(),
            "--out",
            store.toUri().toString()
        };
    }

    /** Every kernel .npy the assembler wrote (ntk, ntk_test, the layers') equals the reference byte for byte. */
    private static void assertSameKernels(Path assembled, Path reference) throws IOException {
        List<String> kernels;
        try (Stream<Path> files = Files.list(assembled)) {
            kernels = files.map(p -> p.getFileName().toString())
                    .filter(f -> f.startsWith("ntk") && f.endsWith(".npy"))
                    .sorted()
                    .toList();
        }
        assertTrue(kernels.containsAll(List.of("ntk.npy", "ntk_test.npy")), kernels.toString());
        assertTrue(kernels.size() >= 4, "ntk, ntk_test and the layers' kernels: " + kernels);
        for (String k : kernels) {
            assertArrayEquals(
                    Files.readAllBytes(reference.resolve(k)),
                    Files.readAllBytes(assembled.resolve(k)),
                    k + " differs from the single-machine kernel");
        }
    }

    /** {@code ntk4j kernel} on one machine: the same request, float64, the same tile, as .npy files. */
    private static Path singleMachine(Path model, Path data, Path out) {
        KernelRequest.Builder r = KernelRequest.builder()
                .model(model.toString())
                .n(N)
                .test(M)
                .mode(Mode.FULL)
                .perLayer(true);
        return SparkFixtures.singleMachineKernel(r, TILE, data, out);
    }

    /** A JVM of its own running {@code args} (a main class and its arguments) on {@code cp}, logging to NAME.log. */
    private Process start(String name, String cp, Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx600m"));
        cmd.addAll(Arrays.asList(ClusterChecks.opensOption().split(" ")));
        cmd.addAll(List.of("-Dai.djl.offline=true", "-Dai.djl.pytorch.num_threads=1", "-cp", cp));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(env);
        pb.environment().put("NTK4J_NATIVE", "off");
        pb.redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile());
        Process p = pb.start();
        started.add(p);
        return p;
    }

    private String log(String name) {
        try {
            return Files.readString(dir.resolve(name + ".log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** The application jar spark-submit ships: the module's compiled classes. */
    private static Path applicationJar(Path classes, Path jar) throws IOException {
        try (OutputStream o = Files.newOutputStream(jar);
                JarOutputStream j = new JarOutputStream(o);
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                j.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, j);
                j.closeEntry();
            }
        }
        return jar;
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    private static boolean listening(int port) {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null ? cp : System.getProperty("java.class.path");
    }
}
