package org.ntk4j.testing;

import java.nio.charset.StandardCharsets;

/** The Python peer of the tests: {@code python3 -c CODE}, and whether it has numpy. */
public final class Python {
    private Python() {}

    /** Whether {@code python3} runs and imports numpy. */
    public static boolean hasNumpy() {
        try {
            return "ok".equals(run("import numpy\nprint('ok')"));
        } catch (Exception e) {
            return false;
        }
    }

    /** Runs {@code code} with {@code python3 -c}; its output and errors, stripped. */
    public static String run(String code) throws Exception {
        Process p = new ProcessBuilder("python3", "-c", code)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        p.waitFor();
        return out;
    }
}
