package org.ntk4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.UserException;

/**
 * What the driver says when the cluster lacks something: libtorch on an executor or on the driver, the Java 17
 * opens in the driver's JVM (both checked in a separate JVM started as a cluster would start the driver), the
 * executors it expects.
 */
class ClusterChecksTest {
    @TempDir
    Path dir;

    @Test
    void djlOfflineFailureBecomesTheTwoWaysToSupplyLibtorch() {
        assertTrue(ClusterChecks.isLibtorchMissing(NoLibtorch.djlOffline()));
        assertTrue(ClusterChecks.isLibtorchMissing(new RuntimeException(new UnsatisfiedLinkError("libtorch.so"))));
        assertFalse(ClusterChecks.isLibtorchMissing(new IllegalStateException("something else")));
        String line = ClusterChecks.libtorchMissingOnExecutor("worker-7", NoLibtorch.djlOffline());
        SparkFixtures.assertOneLine(
                new UserException(line),
                "executor worker-7",
                "--jars pytorch-native-cpu-2.7.1-linux-x86_64.jar",
                "spark.executorEnv.PYTORCH_LIBRARY_PATH=",
                "ai.djl.offline=true DJL does not download one");
        assertFalse(line.contains("Offline mode is enabled"), line);
        // another DJL failure (a wrong PYTORCH_LIBRARY_PATH) is quoted
        String wrong = ClusterChecks.libtorchMissingOnExecutor(
                "w", new ai.djl.engine.EngineException("No pytorch library found in /opt/x"));
        assertTrue(wrong.contains("(DJL: No pytorch library found in /opt/x)"), wrong);
    }

    @Test
    void theOpensTheCodeChecksAreThoseThePomAndTheReadmeList() throws Exception {
        assertTrue(ClusterChecks.missingOpens().isEmpty(), "the test JVM runs with the pom's opens");
        String option = ClusterChecks.opensOption();
        assertTrue(Files.readString(Path.of("pom.xml")).contains(option), "spark/pom.xml's spark.java17.opens");
        assertTrue(Files.readString(Path.of("../README.md")).contains(option), "the README's cluster section");
    }

    @Test
    void expectedExecutorsFromTheConfiguration() {
        assertNull(TaskSlots.expected(new SparkConf(false)));
        assertEquals(8, TaskSlots.expected(new SparkConf(false).set("spark.executor.instances", "8")));
        assertEquals(
                4,
                TaskSlots.expected(
                        new SparkConf(false).set("spark.cores.max", "16").set("spark.executor.cores", "4")));
        assertEquals(
                3,
                TaskSlots.expected(new SparkConf(false)
                        .set("spark.dynamicAllocation.enabled", "true")
                        .set("spark.dynamicAllocation.initialExecutors", "3")));
        assertNull(TaskSlots.expected(new SparkConf(false).set("spark.dynamicAllocation.enabled", "true")));
    }

    @Test
    void slotsAreTheSchedulersCount() {
        org.apache.spark.SparkContext sc = LocalSpark.get().sparkContext();
        assertEquals(2, TaskSlots.slots(sc, sc.getConf()), "local[2,4]: two task slots");
        assertNull(TaskSlots.await(sc).line(), "local mode: nothing to wait for");
    }

    /** The driver started without Spark's opens (--deploy-mode cluster on Java 17): one line, exit 2. */
    @Test
    void driverWithoutTheOpensIsOneLineAndExit2() throws Exception {
        Run r = driver(List.of(), classPath(), dir.resolve("k"));
        assertEquals(2, r.status(), r.stderr());
        List<String> errors = r.errorLines();
        assertEquals(1, errors.size(), r.stderr());
        assertTrue(errors.get(0).startsWith("error: this driver JVM (Java "), errors.get(0));
        assertTrue(
                errors.get(0).contains("spark.driver.extraJavaOptions='--add-opens=java.base/java.lang="), r.stderr());
        assertFalse(r.stderr().contains("\tat "), r.stderr());
    }

    /** The driver without libtorch (no natives jar, an empty DJL cache, offline): one line, exit 2, no trace. */
    @Test
    void driverWithoutLibtorchIsOneLineAndExit2() throws Exception {
        String cp = Arrays.stream(classPath().split(File.pathSeparator))
                .filter(e -> !e.contains("pytorch-native-cpu"))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> opts =
                new ArrayList<>(Arrays.asList(ClusterChecks.opensOption().split(" ")));
        Run r = driver(opts, cp, dir.resolve("k"));
        assertEquals(2, r.status(), r.stderr());
        List<String> errors = r.errorLines();
        assertEquals(1, errors.size(), r.stderr());
        assertTrue(
                errors.get(0).startsWith("error: libtorch (PyTorch's native library) cannot be loaded on the driver"),
                errors.get(0));
        assertTrue(errors.get(0).contains("--driver-class-path pytorch-native-cpu-2.7.1-linux-x86_64.jar"));
        assertFalse(r.stderr().contains("EngineException"), r.stderr());
        assertFalse(r.stderr().contains("\tat "), r.stderr());
        assertFalse(Files.exists(dir.resolve("k")), "nothing written");
    }

    /**
     * A dry run against a real standalone master (started in this JVM, on 127.0.0.1) that has no worker, so no
     * executor can start: after the bounded wait, one line and exit 2, no stack trace.
     */
    @Test
    void dryRunOnAClusterWithoutExecutorsIsOneLine() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        // a real standalone master (Maven's Spark jars), in its own JVM, with no worker
        List<String> cmd = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m"));
        cmd.addAll(Arrays.asList(ClusterChecks.opensOption().split(" ")));
        cmd.addAll(List.of(
                "-cp",
                classPath(),
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--webui-port",
                "0"));
        Process master = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("master.log").toFile())
                .start();
        try {
            long end = System.currentTimeMillis() + 120_000;
            while (!listening(port)) { // the tests' log4j2 configuration keeps the master's INFO lines quiet
                assertTrue(master.isAlive() && System.currentTimeMillis() < end, "the master did not start");
                Thread.sleep(250);
            }
            List<String> opts =
                    new ArrayList<>(Arrays.asList(ClusterChecks.opensOption().split(" ")));
            opts.add("-Dspark.master=spark://127.0.0.1:" + port);
            opts.add("-Dspark.scheduler.maxRegisteredResourcesWaitingTime=3s");
            opts.add("-Dspark.driver.host=127.0.0.1");
            opts.add("-Dspark.driver.bindAddress=127.0.0.1");
            Run r = driver(opts, classPath(), dir.resolve("k"), "--dry-run");
            assertEquals(2, r.status(), r.stdout() + r.stderr());
            List<String> errors = r.errorLines();
            assertEquals(1, errors.size(), r.stderr());
            assertTrue(
                    errors.get(0).startsWith("error: no executor registered with this application in 3 s"), r.stderr());
            assertTrue(errors.get(0).contains("the cluster cannot start executors"), errors.get(0));
            assertFalse(r.stderr().contains("\tat "), r.stderr());
            assertTrue(r.stdout().contains("task slots: 2 (0 executors registered after 3 s"), r.stdout());
        } finally {
            master.destroy();
            master.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static boolean listening(int port) {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private record Run(int status, String stderr, String stdout) {
        List<String> errorLines() {
            return stderr.lines().filter(l -> l.startsWith("error:")).toList();
        }
    }

    private static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null ? cp : System.getProperty("java.class.path");
    }

    private Run driver(List<String> jvmOptions, String cp, Path out, String... more) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx512m"); // Spark wants at least 450 MiB of heap
        if (jvmOptions.stream().noneMatch(o -> o.startsWith("-Dspark.master="))) {
            cmd.add("-Dspark.master=local[1]");
        }
        cmd.addAll(jvmOptions);
        cmd.add("-Dai.djl.offline=true");
        cmd.add("-Dspark.ui.enabled=false");
        cmd.add("-cp");
        cmd.add(cp);
        cmd.add(SparkKernel.class.getName());
        cmd.addAll(List.of(
                "--model", "mlp-quickstart", "--dataset", "mnist-subset", "--n", "10", "--out", out.toString()));
        cmd.addAll(List.of(more));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        // no libtorch but the natives jar's: an empty DJL cache, no library path, no recorded native build
        Path cache = Files.createDirectories(dir.resolve("djl-cache"));
        pb.environment().put("DJL_CACHE_DIR", cache.toString());
        pb.environment().put("ENGINE_CACHE_DIR", cache.toString());
        pb.environment().remove("PYTORCH_LIBRARY_PATH");
        pb.environment().put("NTK4J_NATIVE", "off");
        Path err = dir.resolve("stderr.txt");
        pb.redirectError(err.toFile());
        pb.redirectOutput(dir.resolve("stdout.txt").toFile());
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the driver did not exit in 120 s");
        }
        return new Run(
                p.exitValue(),
                Files.readString(err, StandardCharsets.UTF_8),
                Files.readString(dir.resolve("stdout.txt"), StandardCharsets.UTF_8));
    }
}
