package org.ntk4j.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import ai.djl.ndarray.types.DataType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.ntk4j.kernel.Method;
import org.ntk4j.kernel.Mode;
import org.ntk4j.request.KernelRequest;

/**
 * A plan.json written before the plan's mode, method and dtype were typed (version 1, from {@code ntk4j kernel
 * --n 40 --test 8 --per-layer --tile 8 --shard-size 16 --rows 0:16 --cols 0:16}) reads into the typed plan and
 * writes back byte for byte, with the same id; the request it stands for is the one the command line asked for.
 */
class ShardPlanJsonTest {
    private static String fixture() throws IOException {
        try (InputStream in = ShardPlanJsonTest.class.getResourceAsStream("plan-v1.json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aVersion1PlanReadsTypedAndWritesBackTheSameBytes() throws IOException {
        String json = fixture();
        ShardPlan p = ShardPlan.fromJson(json, "plan-v1.json");
        assertEquals(Mode.TRACE, p.mode());
        assertEquals(DataType.FLOAT32, p.dtype());
        assertEquals(Method.AUTO, p.source().method());
        assertEquals("e2f0c5345cc4815a", p.id());
        assertEquals(json, p.toJson());
        assertEquals(p.id(), p.withId().id());
    }

    @Test
    void thePlansRequestIsTheOneAskedFor() throws IOException {
        ShardPlan p = ShardPlan.fromJson(fixture(), "plan-v1.json");
        KernelRequest r = p.request(null);
        assertEquals("mlp-quickstart", r.model());
        assertEquals(p.source().spec(), r.spec());
        assertNull(r.weights());
        assertEquals(40, r.samples().n());
        assertEquals(8, r.samples().test());
        assertEquals("mnist-subset", r.samples().dataset());
        assertEquals(Mode.TRACE, r.options().mode());
        assertEquals(8, r.options().tile());
        assertEquals(true, r.options().perLayer());
        assertFalse(r.options().float64());
        assertEquals("sum", r.normalisation());
    }

    @Test
    void anUnknownModeIsNotAPlan() throws IOException {
        String bad = fixture().replace("\"mode\": \"trace\"", "\"mode\": \"sideways\"");
        org.ntk4j.UserException e = org.junit.jupiter.api.Assertions.assertThrows(
                org.ntk4j.UserException.class, () -> ShardPlan.fromJson(bad, "bad.json"));
        org.junit.jupiter.api.Assertions.assertTrue(
                e.getMessage().startsWith("bad.json: not a shard plan"), e.getMessage());
    }
}
