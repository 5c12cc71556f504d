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
 * the first build says what it downloads, ANSI colours are off when output is not a terminal, and
 * the thread count is left to the CLI unless NTK4J_THREADS sets it.
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
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Out(p.waitFor(), out, err);
    }

    static void script(Path f, String body) throws Exception {
        Files.writeString(f, "#!/usr/bin/env bash\n" + body);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void firstBuildSaysWhatItDownloadsAndNoAnsiIntoPipes(@TempDir Path dir) throws Exception {
        Path checkout = Files.createDirectories(dir.resolve("checkout"));
        Files.copy(Path.of(System.getProperty("ntk4j.root", ".")).resolve("ntk4j"), checkout.resolve("ntk4j"));
        Files.writeString(checkout.resolve("pom.xml"), "<project/>");
        Files.createDirectories(checkout.resolve("src/main"));
        Path bin = Files.createDirectories(dir.resolve("bin"));
        script(
                bin.resolve("mvn"),
                "mkdir -p target && echo 'x' > target/ntk4j.jar && echo '/dep.jar' > target/classpath.txt\n"
                        + "printf '\\033[0m\\033[0m[INFO] Downloaded from central: https://repo/ai/djl/api/0.35.0/api-0.35.0.jar (900 kB at 1 MB/s)\\n'\n");
        script(bin.resolve("java"), "printf '%s\\n' \"$@\"\n");
        Path home = Files.createDirectories(dir.resolve("home"));

        Out first = launch(checkout, bin, home, Map.of(), "--version");
        assertEquals(0, first.code(), first.stderr());
        assertTrue(first.stderr().contains("first build: Maven downloads ~220 MB"), first.stderr());
        assertTrue(first.stderr().contains("downloaded api-0.35.0.jar (900 kB"), first.stderr());
        assertFalse(first.stderr().contains("\u001b"), "Maven's ANSI resets are stripped: " + first.stderr());
        assertTrue(first.stdout().contains("-Dpicocli.ansi=false"), "stdout is a pipe: " + first.stdout());
        assertFalse(first.stdout().contains("num_threads="), "the CLI picks the default: " + first.stdout());
        assertTrue(first.stdout().strip().endsWith("org.ntk4j.cli.Main\n--version".strip()), first.stdout());

        assertTrue(first.stdout().contains("-Dntk4j.stderr.tty=false"), "stderr is a pipe: " + first.stdout());

        Out again = launch(checkout, bin, home, Map.of("NTK4J_THREADS", "3"), "--version");
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
        script(bin.resolve("java"), "printf '%s\\n' \"$@\"\n");
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
}
