package org.ntk4j.util;

import java.io.PrintStream;

/**
 * Where a command's wall time goes: with the environment variable {@code NTK4J_TRACE_PHASES} set (to anything but
 * {@code 0}), or the system property {@code ntk4j.tracePhases=true}, every {@link #mark} prints one line on stderr,
 * {@code ntk4j: phase NAME at T ms (+D ms; cpu +C ms)}, T counted from the start of the process (the launcher, which
 * {@code exec}s the JVM in the same process), D from the previous mark and C the CPU time all the process's threads
 * (the JIT compilers and the engine's pool included) used since then, which a loaded machine inflates less than D; a
 * last line {@code exit} is printed by a shutdown hook.
 * Off (the default), a mark is one static boolean test.
 */
public final class Phases {
    private static final boolean ON = "true".equals(System.getProperty("ntk4j.tracePhases"))
            || (System.getenv("NTK4J_TRACE_PHASES") != null
                    && !System.getenv("NTK4J_TRACE_PHASES").isEmpty()
                    && !"0".equals(System.getenv("NTK4J_TRACE_PHASES")));
    private static final long START_MILLIS = ON ? processStartMillis() : 0;
    private static long last = START_MILLIS;
    private static long lastCpu = 0;

    static {
        if (ON) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> mark("exit"), "ntk4j-phases"));
            // the launcher's own share: it exports the time (ms since the epoch) at which it execs java
            String exec = System.getenv("NTK4J_EXEC_MILLIS");
            if (exec != null && exec.matches("[0-9]{1,19}")) {
                long at = Long.parseLong(exec);
                System.err.printf(
                        "ntk4j: phase %-24s at %6d ms (+%d ms)%n", "launcher", at - START_MILLIS, at - START_MILLIS);
                last = at;
            }
        }
    }

    private Phases() {}

    /** Whether marks are printed. */
    public static boolean on() {
        return ON;
    }

    /** Prints the time at which {@code name} ends, when tracing is on. */
    public static synchronized void mark(String name) {
        if (!ON) {
            return;
        }
        long now = System.currentTimeMillis();
        long cpu = cpuMillis();
        PrintStream err = System.err;
        err.printf(
                "ntk4j: phase %-24s at %6d ms (+%d ms; cpu +%d ms)%n",
                name, now - START_MILLIS, now - last, cpu - lastCpu);
        last = now;
        lastCpu = cpu;
    }

    /** The CPU time of the process's threads so far ({@code /proc/self/stat} utime + stime, 10 ms resolution). */
    private static long cpuMillis() {
        try {
            String[] f = stat();
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10; // fields 14 and 15 of proc(5)
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    /** The fields of {@code /proc/self/stat} after the command name, from field 3 (the state) on. */
    private static String[] stat() throws java.io.IOException {
        String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }

    /**
     * The process's start: {@code /proc/self/stat}'s start time (clock ticks since boot, 100 per second) against
     * {@code /proc/uptime} (10 ms resolution; the JDK's {@code ProcessHandle.Info.startInstant} adds the boot time
     * in whole seconds, up to a second off), or this class's initialisation where /proc cannot be read.
     */
    private static long processStartMillis() {
        long now = System.currentTimeMillis();
        try {
            String[] fields = stat();
            double startSeconds = Long.parseLong(fields[19]) / 100.0; // field 22 of proc(5), counted from field 3
            String uptime = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/uptime"));
            double upSeconds = Double.parseDouble(uptime.substring(0, uptime.indexOf(' ')));
            return now - Math.round((upSeconds - startSeconds) * 1000);
        } catch (java.io.IOException | RuntimeException e) {
            return now;
        }
    }
}
