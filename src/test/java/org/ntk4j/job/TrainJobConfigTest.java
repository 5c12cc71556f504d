package org.ntk4j.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Specs;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.Schedule;

/**
 * The typed training config writes args.json as before (probes, schedule and probe points as the strings the
 * command line takes) and reads it back equal, also from the args.json of a run started before the typed fields; the
 * probe registry parses, orders and names the probes.
 */
class TrainJobConfigTest {
    private static TrainJobConfig config() {
        return TrainJobConfig.builder(
                        ModelSpec.resolve("mlp-quickstart"), TrainSpec.builder().build(), "mnist-subset")
                .perClass(20)
                .probes(ProbeKind.parse("ntk,nc,nfa"))
                .probeEvery(Schedule.parse("every:5"))
                .probePoints(TrainJobConfig.ProbePoints.TRAIN)
                .threads(2)
                .build();
    }

    @Test
    void argsJsonKeepsItsStringsAndReadsBack() {
        TrainJobConfig c = config();
        JsonObject o = JsonParser.parseString(Specs.toJson(c)).getAsJsonObject();
        assertEquals("ntk,nc,nfa", o.get("probe").getAsString());
        assertEquals("every:5", o.get("probeEvery").getAsString());
        assertEquals("train", o.get("probePoints").getAsString());
        assertEquals(10, o.get("probeSet").getAsInt());
        assertTrue(!o.has("layerCkaMax") && !o.has("pad") && !o.has("classes"), "unset fields are left out");
        TrainJobConfig back = Specs.parse(Specs.toJson(c), TrainJobConfig.class, "args.json");
        assertEquals(c.probes(), back.probes());
        assertEquals("every:5", back.probeEvery().toString());
        assertEquals(TrainJobConfig.ProbePoints.TRAIN, back.probePoints());
        assertEquals(Specs.toJson(c), Specs.toJson(back));
    }

    @Test
    void anArgsJsonFromBeforeTheOptionsTakesTheEarlierDefaults() {
        String old = Specs.toJson(TrainJobConfig.of(
                ModelSpec.resolve("mlp-quickstart"), TrainSpec.builder().build(), "mnist-subset"));
        JsonObject o = JsonParser.parseString(old).getAsJsonObject();
        o.remove("probeEvery");
        TrainJobConfig c = Specs.parse(o.toString(), TrainJobConfig.class, "args.json");
        assertEquals(List.of(), c.probes());
        assertNull(c.probe());
        assertEquals("epochs", c.probeEvery().toString());
        assertEquals(
                TrainJobConfig.ProbePoints.TEST, c.probePointsOrDefault(), "test images, as runs before the option");
    }

    @Test
    void aBadProbeOrScheduleInArgsJsonIsALineNamingTheFile() {
        JsonObject o = JsonParser.parseString(Specs.toJson(config())).getAsJsonObject();
        o.addProperty("probe", "ntk,ncc");
        UserException e = assertThrows(
                UserException.class, () -> Specs.parse(o.toString(), TrainJobConfig.class, "run/args.json"));
        assertTrue(e.getMessage().startsWith("run/args.json: bad value"), e.getMessage());
        assertTrue(e.getMessage().contains("unknown probe 'ncc'"), e.getMessage());
        o.addProperty("probe", "nc");
        o.addProperty("probePoints", "validation");
        e = assertThrows(UserException.class, () -> Specs.parse(o.toString(), TrainJobConfig.class, "run/args.json"));
        assertTrue(e.getMessage().contains("--probe-points must be one of [train, test]"), e.getMessage());
    }

    @Test
    void probeRegistryParsesInOrderWithoutRepeatsAndReportsInItsOwnOrder() {
        assertEquals(List.of(ProbeKind.NTK, ProbeKind.NC), ProbeKind.parse(" ntk , NC,ntk"));
        assertEquals("ntk,nc", ProbeKind.join(ProbeKind.parse("ntk,nc")));
        assertEquals(List.of(), ProbeKind.parse(""));
        assertEquals(List.of(ProbeKind.NC, ProbeKind.NFA, ProbeKind.NTK), List.of(ProbeKind.values()));
        UserException e = assertThrows(UserException.class, () -> ProbeKind.parse("ntk,bogus"));
        assertEquals(
                "--probe: unknown probe 'bogus'; expected a comma-separated list of [nc, nfa, ntk]", e.getMessage());
    }

    @Test
    void quickstartConfigIsTheDocumentedRun() {
        TrainJobConfig q = Quickstart.config(5);
        assertEquals("ntk,nc,nfa", ProbeKind.join(q.probes()));
        assertEquals(0.05, q.train().lr());
        assertEquals(0.9, q.train().momentum());
        assertEquals(64, q.train().batchSize());
        assertEquals(5, q.train().epochs());
        assertEquals("mnist-subset", q.dataset());
    }
}
