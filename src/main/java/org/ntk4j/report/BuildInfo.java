package org.ntk4j.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * The version and git commit this build was made from: build.properties (filtered by Maven) and
 * commit.txt (written at build time by pom.xml from {@code git rev-parse}; "unknown" without .git).
 * No picocli here: library users have no CLI on their classpath, and reports use this class.
 */
public final class BuildInfo {
    private BuildInfo() {}

    /** e.g. "0.1.0-SNAPSHOT"; "unknown" if the resource is missing. */
    public static String version() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("/org/ntk4j/build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        String v = p.getProperty("version", "unknown");
        return v.startsWith("${") ? "unknown" : v;
    }

    /** The short git commit of the build, or "unknown" (a source tarball, no git). */
    public static String commit() {
        try (InputStream in = BuildInfo.class.getResourceAsStream("/org/ntk4j/commit.txt")) {
            if (in == null) {
                return "unknown";
            }
            String c = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            return c.isEmpty() || !c.matches("[0-9a-f]{4,40}") ? "unknown" : c;
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** "ntk4j 0.1.0-SNAPSHOT (commit 1234abcd)", as {@code --version} and report footers print it. */
    public static String describe() {
        return "ntk4j " + version() + " (commit " + commit() + ")";
    }

    private static volatile String command;

    /** Records the command line this process runs (the CLI sets it; reports name it in their footer). */
    public static void command(java.util.List<String> args) {
        StringBuilder b = new StringBuilder("ntk4j");
        for (String a : args) {
            b.append(' ')
                    .append(a.isEmpty() || a.matches(".*[\\s'\"$`\\\\].*") ? "'" + a.replace("'", "'\\''") + "'" : a);
        }
        command = b.toString();
    }

    /** The command line recorded by {@link #command(java.util.List)}, or "(Java API)" when none was. */
    public static String command() {
        return command != null ? command : "(Java API)";
    }

    /** The report footer: command, version, commit and date. */
    public static String footer() {
        return "Command: " + command() + " | " + describe() + " | "
                + java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC).withNano(0);
    }
}
