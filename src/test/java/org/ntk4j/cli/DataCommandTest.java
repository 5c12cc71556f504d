package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class DataCommandTest {
    @TempDir
    Path dir;

    private record Result(int code, String out, String err) {}

    private static Result run(String... args) {
        PrintStream old = System.out;
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        try {
            System.setOut(new PrintStream(bo, true, StandardCharsets.UTF_8));
            CommandLine cl = Main.commandLine();
            cl.setErr(new PrintWriter(err, true));
            int code = cl.execute(args);
            return new Result(code, bo.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(old);
        }
    }

    @Test
    void infoOnBundledSubset() {
        Result r = run("data", "info", "mnist-subset");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("train n=2000  shape=[1, 28, 28]"), r.out());
        assertTrue(r.out().contains("test  n=500"), r.out());
        assertTrue(r.out().contains("[50, 50, 50, 50, 50, 50, 50, 50, 50, 50]"), r.out());
    }

    @Test
    void userMistakesExitTwoWithOneLine() {
        Result r = run("data", "info", "mnist", "--dir", dir.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().startsWith("ntk4j: error: "), r.err());
        assertTrue(r.err().contains("ntk4j data fetch mnist"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        Result u = run("data", "fetch", "mnist-subset", "--dir", dir.toString());
        assertEquals(2, u.code());
        assertTrue(u.err().contains("bundled"), u.err());
    }

    @Test
    void whereListsDatasets() {
        Result r = run("data", "where", "--dir", dir.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("cifar10: absent (ntk4j data fetch cifar10)"), r.out());
    }
}
