package org.ntk4j.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JSON written from literals keeps the literal's order, so a study's results.json is the same file run after run. */
class SpecsTest {
    @Test
    void orderedKeepsTheOrderOfItsPairs() {
        Map<String, Object> m = Specs.ordered("settings", 1, "rows", List.of(2, 3), "verdicts", "ok", "a", 4.5);
        assertEquals(List.of("settings", "rows", "verdicts", "a"), List.copyOf(m.keySet()));
        String json = Specs.toJson(m);
        assertEquals(true, json.indexOf("settings") < json.indexOf("rows"), json);
        assertEquals(true, json.indexOf("verdicts") < json.indexOf("\"a\""), json);
        assertThrows(IllegalArgumentException.class, () -> Specs.ordered("settings", 1, "rows"));
    }
}
