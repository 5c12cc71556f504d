package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ./ntk4j launcher, run against fake {@code mvn} and {@code java} on PATH (no build, no JVM):
 * the first build says what it downloads, ANSI colours are off when output is not a terminal, the thread count is
 * left to the CLI unless NTK4J_THREADS sets it, OpenMP workers spin only with free cores, and the training commands
 * run on the JVM's first compiler alone.
 */
class LauncherTest {
    record Out(int code, String stdout, String stderr) {}

    static Out launch(Path checkout, Path bin, Path home, Map<String, String> env, String... args) throws Exception {
        java.util.List<String> cmd = new java.util.ArrayList<>(
                java.util.List.of("bash", checkout.resolve("ntk4j").toString()));
        cmd.addAll(java.util.List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("HOME", home.toString());
        pb.environment().remove("NTK4J_THREADS");
        pb.environment().remove("NTK4J_SPIN"); // the tests' own choices of the OpenMP wait, not the caller's
        pb.environment().remove("GOMP_SPINCOUNT");
        pb.environment().remove("OMP_WAIT_POLICY");
        pb.environment().remove("NTK4J_PRINT_ENV");
        pb.environment().remove("NTK4J_JIT"); // the tests' own JIT choices and JVM flags
        pb.environment().remove("JAVA_OPTS");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Out(p.waitFor(), out, err);
    }

    /** A checkout with the real launcher, an empty pom and sources, and no build yet. */
    static Path checkout(Path dir) throws Exception {
        Path checkout = Files.createDirectories(dir.resolve("checkout"));
        Files.copy(Path.of(System.getProperty("ntk4j.root", ".")).resolve("ntk4j"), checkout.resolve("ntk4j"));
        Files.writeString(checkout.resolve("pom.xml"), "<project/>");
        Files.createDirectories(checkout.resolve("src/main"));
        return checkout;
    }

    /** A fake mvn that "builds" the jar and classpath file and prints {@code output} (Maven's log lines). */
    static void fakeMaven(Path bin, String output) throws Exception {
        script(
                bin.resolve("mvn"),
                "mkdir -p target && echo 'x' > target/ntk4j.jar && echo '/dep.jar' > target/classpath.txt\n"
                        + "printf '%s\\n' '" + output + "'\n");
    }

    /** A checkout with no build yet, a fake mvn that builds it and prints {@code mavenOutput}, a fake java, a home. */
    record Rig(Path checkout, Path bin, Path home) {
        static Rig of(Path dir, String mavenOutput, String javaBody) throws Exception {
            Rig r = new Rig(
                    LauncherTest.checkout(dir),
                    Files.createDirectories(dir.resolve("bin")),
                    Files.createDirectories(dir.resolve("home")));
            fakeMaven(r.bin(), mavenOutput);
            script(r.bin().resolve("java"), javaBody);
            return r;
        }

        /** The launcher with {@code env} added, for use inside lambdas. */
        Out run(Map<String, String> env, String... args) {
            try {
                return launch(checkout, bin, home, env, args);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** The fake java of most tests: prints its arguments, one per line. */
    static final String PRINT_ARGS = "printf '%s\\n' \"$@\"\n";

    static void script(Path f, String body) throws Exception {
        Files.writeString(f, "#!/usr/bin/env bash\n" + body);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void firstBuildSaysWhatItDownloadsAndNoAnsiIntoPipes(@TempDir Path dir) throws Exception {
        Rig rig = Rig.of(
                dir,
                "\u001b[0m\u001b[0m[INFO] Downloaded from central:"
                        + " https://repo/ai/djl/api/0.35.0/api-0.35.0.jar (900 kB at 1 MB/s)",
                PRINT_ARGS);

        Out first = rig.run(Map.of(), "--version");
        assertEquals(0, first.code(), first.stderr());
        assertTrue(first.stderr().contains("first build: Maven downloads ~220 MB"), first.stderr());
        assertTrue(first.stderr().contains("downloaded api-0.35.0.jar (900 kB"), first.stderr());
        assertFalse(first.stderr().contains("\u001b"), "Maven's ANSI resets are stripped: " + first.stderr());
        assertTrue(first.stdout().contains("-Dpicocli.ansi=false"), "stdout is a pipe: " + first.stdout());
        assertFalse(first.stdout().contains("num_threads="), "the CLI picks the default: " + first.stdout());
        assertTrue(first.stdout().strip().endsWith("org.ntk4j.cli.Main\n--version".strip()), first.stdout());

        assertTrue(first.stdout().contains("-Dntk4j.stderr.tty=false"), "stderr is a pipe: " + first.stdout());

        Out again = rig.run(Map.of("NTK4J_THREADS", "3"), "--version");
        assertFalse(again.stderr().contains("building"), "no rebuild when nothing changed: " + again.stderr());
        assertTrue(again.stdout().contains("-Dai.djl.pytorch.num_threads=3"), again.stdout());
    }

    @Test
    void aFreshCloneWithDependenciesInM2SaysFirstBuildNotSourcesChanged(@TempDir Path dir) throws Exception {
        Path checkout = Files.createDirectories(dir.resolve("checkout"));
        Files.copy(Path.of(System.getProperty("ntk4j.root", ".")).resolve("ntk4j"), checkout.resolve("ntk4j"));
        Files.writeString(checkout.resolve("pom.xml"), "<project/>");
        Path src = Files.createDirectories(checkout.resolve("src/main"));
        Path bin = Files.createDirectories(dir.resolve("bin"));
        script(
                bin.resolve("mvn"),
                "mkdir -p target && echo 'x' > target/ntk4j.jar && echo '/d.jar' > target/classpath.txt\n");
        script(bin.resolve("java"), PRINT_ARGS);
        Path home = Files.createDirectories(dir.resolve("home"));
        Files.createDirectories(home.resolve(".m2/repository/ai/djl/pytorch/pytorch-native-cpu"));

        Out first = launch(checkout, bin, home, Map.of(), "--version");
        assertEquals(0, first.code(), first.stderr());
        assertTrue(first.stderr().contains("first build of this checkout"), first.stderr());
        assertFalse(first.stderr().contains("sources changed"), first.stderr());

        Thread.sleep(1100); // a newer modification time than the jar's, at one-second resolution
        Files.writeString(src.resolve("A.java"), "class A {}");
        Out changed = launch(checkout, bin, home, Map.of(), "--version");
        assertTrue(changed.stderr().contains("sources changed"), changed.stderr());
    }

    /**
     * The class-data archive: the first run of a command dumps into a temporary named after its process, a successful
     * one marks it (DUMP.ok), the next run has the JVM check it (-Xshare:on) and renames it into place, later runs map
     * it; an unmarked dump (a failed run) or one the JVM refuses is deleted and dumped again; NTK4J_CDS=off and
     * option-only command lines pass nothing.
     */
    @Test
    void classDataArchiveIsDumpedCheckedAndUsed(@TempDir Path dir) throws Exception {
        Path checkout = checkout(dir);
        Files.createDirectories(checkout.resolve("target"));
        Files.writeString(checkout.resolve("target/ntk4j.jar"), "x");
        Files.writeString(checkout.resolve("target/classpath.txt"), "/dep.jar");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        script(bin.resolve("mvn"), "echo 'no build expected' >&2; exit 1\n");
        Path validations = dir.resolve("validations");
        // the fake JVM: a -version call is the launcher's check (it fails while REFUSE exists); a command prints its
        // arguments, "dumps" where -XX:ArchiveClassesAtExit says and marks success as Main does when FAIL is absent
        script(
                bin.resolve("java"),
                "for a in \"$@\"; do case \"$a\" in -version) echo x >> '" + validations + "';"
                        + " [ -f '" + dir.resolve("REFUSE") + "' ] && exit 1; exit 0;; esac; done\n"
                        + "printf '%s\\n' \"$@\"\n"
                        + "for a in \"$@\"; do case \"$a\" in -XX:ArchiveClassesAtExit=*) f=\"${a#*=}\"; echo archive > \"$f\";"
                        + " [ -f '" + dir.resolve("FAIL") + "' ] || : > \"$f.ok\";; esac; done\n");
        Path home = Files.createDirectories(dir.resolve("home"));
        Path cds = checkout.resolve("target/cds");

        Out first = launch(checkout, bin, home, Map.of(), "kernel", "--n", "10");
        assertEquals(0, first.code(), first.stderr());
        assertTrue(first.stdout().contains("-XX:ArchiveClassesAtExit=" + cds), first.stdout());
        assertTrue(first.stdout().contains("-Xlog:cds*=off"), "no CDS warnings in the output: " + first.stdout());
        assertFalse(first.stdout().contains("-XX:SharedArchiveFile"), first.stdout());

        Out second = launch(checkout, bin, home, Map.of(), "kernel", "--n", "10");
        assertTrue(second.stdout().contains("-XX:SharedArchiveFile=" + cds), second.stdout());
        assertEquals(1, Files.readAllLines(validations).size(), "checked once, before its first use");
        try (var files = Files.list(cds)) {
            assertEquals(1, files.filter(f -> f.toString().endsWith(".jsa")).count(), "renamed into place");
        }
        Out third = launch(checkout, bin, home, Map.of(), "kernel", "--n", "10");
        assertTrue(third.stdout().contains("-XX:SharedArchiveFile=" + cds), third.stdout());
        assertEquals(1, Files.readAllLines(validations).size(), "no check once in place");

        // another command has its own archive; a failed first run leaves no mark: deleted, dumped again
        Files.writeString(dir.resolve("FAIL"), "");
        Out failed = launch(checkout, bin, home, Map.of(), "train", "--epochs", "1");
        assertTrue(failed.stdout().contains("-XX:ArchiveClassesAtExit=" + cds.resolve("train-")), failed.stdout());
        Files.delete(dir.resolve("FAIL"));
        Out redump = launch(checkout, bin, home, Map.of(), "train", "--epochs", "1");
        assertTrue(redump.stdout().contains("-XX:ArchiveClassesAtExit="), "unmarked dump not used: " + redump.stdout());
        assertEquals(1, Files.readAllLines(validations).size(), "an unmarked dump is not even checked");
        // a marked dump the JVM refuses (e.g. cut short) is deleted, never passed to a command
        Files.writeString(dir.resolve("REFUSE"), "");
        Out refused = launch(checkout, bin, home, Map.of(), "train", "--epochs", "1");
        assertFalse(refused.stdout().contains("-XX:SharedArchiveFile"), refused.stdout());
        assertTrue(refused.stdout().contains("-XX:ArchiveClassesAtExit="), refused.stdout());
        assertEquals(2, Files.readAllLines(validations).size());

        Out off = launch(checkout, bin, home, Map.of("NTK4J_CDS", "off"), "kernel", "--n", "10");
        assertFalse(
                off.stdout().contains("-XX:SharedArchiveFile") || off.stdout().contains("ArchiveClassesAtExit"),
                off.stdout());
        Out help = launch(checkout, bin, home, Map.of(), "models", "--help");
        assertFalse(
                help.stdout().contains("-XX:SharedArchiveFile") || help.stdout().contains("ArchiveClasses"),
                "a help request does not dump the command's archive: " + help.stdout());
        Out version = launch(checkout, bin, home, Map.of(), "--version");
        assertFalse(
                version.stdout().contains("-XX:SharedArchiveFile")
                        || version.stdout().contains("ArchiveClasses"),
                version.stdout());

        // a rebuilt jar retires the archive: the next run dumps afresh
        Files.setLastModifiedTime(
                checkout.resolve("target/ntk4j.jar"),
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 60_000));
        Files.setLastModifiedTime(
                checkout.resolve("target/classpath.txt"),
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 60_000));
        Out rebuilt = launch(checkout, bin, home, Map.of(), "kernel", "--n", "10");
        assertTrue(rebuilt.stdout().contains("-XX:ArchiveClassesAtExit="), rebuilt.stdout());
    }

    /**
     * The cores other processes keep busy (the processes running besides the launcher, whatever the load average
     * says) go to the CLI, and libtorch's OpenMP workers spin briefly only when every thread has a free core and
     * nobody chose a wait policy.
     */
    @Test
    void openMpWorkersSpinOnlyWhenEveryThreadHasAFreeCore(@TempDir Path dir) throws Exception {
        Rig rig = Rig.of(dir, "[INFO] BUILD SUCCESS", "echo \"GOMP_SPINCOUNT=${GOMP_SPINCOUNT-unset}\"; " + PRINT_ARGS);
        script(rig.bin().resolve("nproc"), "echo 4\n");
        Path loadavg = dir.resolve("loadavg");
        java.util.function.BiFunction<String, String[], String> run = (load, args) -> {
            try {
                Files.writeString(loadavg, load + "\n");
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            Out o = rig.run(Map.of("NTK4J_LOADAVG", loadavg.toString()), args);
            assertEquals(0, o.code(), o.stderr());
            return o.stdout();
        };
        String idle = run.apply("0.10 0.20 0.30 1/120 999", new String[] {"--version"});
        assertTrue(idle.contains("GOMP_SPINCOUNT=3000"), idle);
        assertTrue(idle.contains("-Dntk4j.busyCores=0"), idle);
        // the average still holds an earlier command's load, but nothing else runs now: all cores are free
        String stale = run.apply("3.60 2.00 1.00 1/120 999", new String[] {"--version"});
        assertTrue(stale.contains("-Dntk4j.busyCores=0") && stale.contains("GOMP_SPINCOUNT=3000"), stale);
        // two other processes run now, and have for a while: two of four cores are busy
        String busy = run.apply("1.70 1.60 1.00 3/120 999", new String[] {"--version"});
        assertTrue(busy.contains("-Dntk4j.busyCores=2") && busy.contains("GOMP_SPINCOUNT=3000"), busy);
        // three started seconds ago (the average has not seen them yet): one core is left, so one thread, no spin
        String fresh = run.apply("0.20 0.10 0.00 4/120 999", new String[] {"--version"});
        assertTrue(fresh.contains("-Dntk4j.busyCores=3") && fresh.contains("GOMP_SPINCOUNT=unset"), fresh);
        assertTrue(run.apply("1.70 1.60 1.00 3/120 999", new String[] {"--threads", "2", "x"})
                .contains("GOMP_SPINCOUNT=3000"));
        assertTrue(
                run.apply("1.70 1.60 1.00 3/120 999", new String[] {"--threads=3", "x"})
                        .contains("GOMP_SPINCOUNT=unset"),
                "3 threads on 2 free cores sleep");
        assertTrue(
                run.apply("0.10 0.20 0.30 1/120 999", new String[] {"--threads", "1", "x"})
                        .contains("GOMP_SPINCOUNT=unset"),
                "one thread has no workers");
        Files.writeString(loadavg, "0.10 0.20 0.30 1/120 999\n");
        for (Map<String, String> env : java.util.List.of(
                Map.of("NTK4J_SPIN", "off"), Map.of("OMP_WAIT_POLICY", "PASSIVE"), Map.of("NTK4J_THREADS", "9"))) {
            java.util.Map<String, String> e = new java.util.HashMap<>(env);
            e.put("NTK4J_LOADAVG", loadavg.toString());
            Out o = rig.run(e, "--version");
            assertTrue(o.stdout().contains("GOMP_SPINCOUNT=unset"), env + ": " + o.stdout());
        }
        java.util.Map<String, String> own = new java.util.HashMap<>(Map.of("GOMP_SPINCOUNT", "77"));
        own.put("NTK4J_LOADAVG", loadavg.toString());
        assertTrue(rig.run(own, "--version").stdout().contains("GOMP_SPINCOUNT=77"));
    }

    /**
     * The JIT policy: train and quickstart run on C1 alone on a CPU setup (their time is in the engine, and C2's
     * compiler threads take the engine's cores), every other command keeps both compilers; a recorded CUDA build or
     * --device gpu keeps both; NTK4J_JIT decides for any command; the user's JAVA_OPTS come later on the line (win);
     * a bad NTK4J_JIT is one line and exit 2.
     */
    @Test
    void trainingCommandsRunOnC1AloneOnACpuSetup(@TempDir Path dir) throws Exception {
        Rig rig = Rig.of(dir, "[INFO] BUILD SUCCESS", PRINT_ARGS);
        Path noNative = dir.resolve("none.properties");
        java.util.function.BiFunction<Map<String, String>, String[], Out> run = (env, args) -> {
            java.util.Map<String, String> e = new java.util.HashMap<>(env);
            e.putIfAbsent("NTK4J_NATIVE_ENV", noNative.toString());
            e.put("NTK4J_CDS", "off");
            return rig.run(e, args);
        };
        String c1 = "-XX:TieredStopAtLevel=1";
        for (String cmd : new String[] {"train", "quickstart"}) {
            Out o = run.apply(Map.of(), new String[] {cmd, "--epochs", "1"});
            assertEquals(0, o.code(), o.stderr());
            assertTrue(o.stdout().contains(c1), cmd + ": " + o.stdout());
        }
        for (String cmd : new String[] {"kernel", "reproduce", "report"}) {
            assertFalse(run.apply(Map.of(), new String[] {cmd}).stdout().contains(c1), cmd);
        }
        assertFalse(
                run.apply(Map.of(), new String[] {"train", "--device", "gpu"})
                        .stdout()
                        .contains(c1),
                "gpu");
        assertFalse(
                run.apply(Map.of(), new String[] {"train", "--device=gpu"})
                        .stdout()
                        .contains(c1),
                "gpu");
        assertFalse(
                run.apply(Map.of("NTK4J_JIT", "full"), new String[] {"train"})
                        .stdout()
                        .contains(c1),
                "full");
        assertTrue(
                run.apply(Map.of("NTK4J_JIT", "c1"), new String[] {"kernel"})
                        .stdout()
                        .contains(c1),
                "c1");
        // a recorded CUDA build: the GPU does the work (not measured there), unless the run asks for the CPU
        Path lib = Files.createDirectories(dir.resolve("torch-cuda/lib"));
        Path cuda = dir.resolve("cuda.properties");
        Files.writeString(cuda, "PYTORCH_LIBRARY_PATH=" + lib + "\nPYTORCH_FLAVOR=cu124\n");
        Map<String, String> recorded = Map.of("NTK4J_NATIVE_ENV", cuda.toString());
        assertFalse(run.apply(recorded, new String[] {"train"}).stdout().contains(c1), "cuda build");
        assertTrue(
                run.apply(recorded, new String[] {"train", "--device", "cpu"})
                        .stdout()
                        .contains(c1),
                "cpu");
        // JAVA_OPTS after the policy's flag: the user's own choice is the one the JVM keeps (the last one)
        String line = run.apply(Map.of("JAVA_OPTS", "-XX:TieredStopAtLevel=4"), new String[] {"train"})
                .stdout();
        assertTrue(line.indexOf(c1) >= 0 && line.indexOf(c1) < line.indexOf("-XX:TieredStopAtLevel=4"), line);
        Out bad = run.apply(Map.of("NTK4J_JIT", "fast"), new String[] {"train"});
        assertEquals(2, bad.code());
        assertEquals(
                "ntk4j: NTK4J_JIT must be auto, c1 or full (got 'fast')",
                bad.stderr().strip());
    }
}
