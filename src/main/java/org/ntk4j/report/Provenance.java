package org.ntk4j.report;

import ai.djl.Device;
import ai.djl.engine.Engine;
import com.google.gson.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where and with what a run was computed: ntk4j version and commit, DJL and PyTorch versions, the device, Java,
 * operating system, cores and PyTorch threads. A training run logs it as a {@code "kind": "session"} record when it
 * starts or resumes ({@link #record}); its report shows every session.
 */
public final class Provenance {
    /** The record kind in metrics.jsonl. */
    public static final String KIND = "session";

    private Provenance() {}

    /** This process's provenance with {@code device} (where the run computes); loads the engine to read its version. */
    public static JsonObject record(Device device, boolean resumed) {
        JsonObject r = new JsonObject();
        r.addProperty("kind", KIND);
        r.addProperty(
                "started",
                java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC)
                        .withNano(0)
                        .toString());
        r.addProperty("resumed", resumed);
        r.addProperty("device", device == null ? "unknown" : device.toString());
        r.addProperty("ntk4j", BuildInfo.describe());
        r.addProperty("djl", Engine.getDjlVersion());
        Engine e = Engine.getInstance();
        r.addProperty("engine", e.getEngineName() + " " + e.getVersion());
        r.addProperty("onednn", org.ntk4j.natives.OneDnn.apply());
        r.addProperty("mkl", org.ntk4j.natives.Lapack.mklDispatch());
        r.addProperty("java", System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")");
        r.addProperty(
                "os",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"));
        r.addProperty("cores", Runtime.getRuntime().availableProcessors());
        String threads = System.getProperty("ai.djl.pytorch.num_threads");
        r.addProperty("threads", threads == null ? "PyTorch default" : threads);
        r.addProperty("openmp_wait", openMpWait(System.getenv("GOMP_SPINCOUNT"), System.getenv("OMP_WAIT_POLICY")));
        r.addProperty("jit", jit());
        r.addProperty("command", BuildInfo.command());
        return r;
    }

    /**
     * How libtorch's OpenMP workers wait between parallel regions (libgomp reads it at process start; it changes the
     * speed, never a result): the launcher's brief spin ({@code GOMP_SPINCOUNT}) or the wait policy.
     */
    static String openMpWait(String spinCount, String waitPolicy) {
        if (spinCount != null && !spinCount.isBlank()) {
            return "spin " + spinCount.trim() + ", then sleep";
        }
        if (waitPolicy != null && !waitPolicy.isBlank()) {
            return waitPolicy.trim().equalsIgnoreCase("passive")
                    ? "sleep (passive)"
                    : waitPolicy.trim().toLowerCase();
        }
        return "libgomp default";
    }

    /**
     * Which of HotSpot's compilers this JVM runs (it changes the speed, never a result: Java's arithmetic is the same in
     * every tier): "C1 only" when it stops at tier 1 (the launcher's choice for train and quickstart on a CPU setup,
     * NTK4J_JIT), else "C1 and C2".
     */
    static String jit() {
        try {
            var vm = java.lang.management.ManagementFactory.getPlatformMXBean(
                    com.sun.management.HotSpotDiagnosticMXBean.class);
            if (!Boolean.parseBoolean(vm.getVMOption("TieredCompilation").getValue())) {
                return "C2 only (no tiered compilation)";
            }
            int level = Integer.parseInt(vm.getVMOption("TieredStopAtLevel").getValue());
            return level < 4 ? "C1 only (TieredStopAtLevel=" + level + ")" : "C1 and C2";
        } catch (RuntimeException | LinkageError e) {
            return "unknown";
        }
    }

    /** The rows a report shows for one session record: label → value. */
    public static Map<String, String> rows(JsonObject session) {
        Map<String, String> m = new LinkedHashMap<>();
        String[][] keys = {
            {"started", "started (UTC)"},
            {"device", "device"},
            {"engine", "engine (PyTorch)"},
            {"onednn", "oneDNN convolutions"},
            {"mkl", "MKL kernels"},
            {"djl", "DJL"},
            {"ntk4j", "ntk4j"},
            {"java", "Java"},
            {"os", "OS"},
            {"cores", "cores"},
            {"threads", "PyTorch threads"},
            {"openmp_wait", "OpenMP workers between regions"},
            {"jit", "JVM compilers"},
            {"command", "command"}
        };
        for (String[] k : keys) {
            if (session.has(k[0])) {
                m.put(k[1], Numbers.value(k[0], session.get(k[0])));
            }
        }
        if (session.has("resumed") && session.get("resumed").getAsBoolean()) {
            m.put("started (UTC)", m.getOrDefault("started (UTC)", "?") + " (resumed)");
        }
        return m;
    }
}
