package org.ntk4j.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import com.google.gson.JsonObject;
import java.lang.management.ManagementFactory;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A session record says how the process ran what changes its speed but never its results: the OpenMP wait and which
 * of the JVM's compilers run (the launcher stops at C1 for train and quickstart), and a report shows both.
 */
class ProvenanceTest {
    @Test
    void sessionRecordSaysWhichCompilersRanAndHowWorkersWait() {
        JsonObject r = Provenance.record(Device.cpu(), false);
        String jit = r.get("jit").getAsString();
        String level = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.matches("-XX:TieredStopAtLevel=[0-3]"))
                .reduce((first, last) -> last)
                .map(a -> a.substring(a.indexOf('=') + 1))
                .orElse(null);
        assertEquals(
                level != null ? "C1 only (TieredStopAtLevel=" + level + ")" : "C1 and C2", jit, "this JVM's flags");
        assertTrue(r.has("openmp_wait"), r.toString());
        Map<String, String> rows = Provenance.rows(r);
        assertEquals(jit, rows.get("JVM compilers"));
        assertEquals("spin 3000, then sleep", Provenance.openMpWait("3000", "PASSIVE"));
        assertEquals("sleep (passive)", Provenance.openMpWait(null, "PASSIVE"));
    }
}
