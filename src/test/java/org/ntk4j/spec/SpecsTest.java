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

    @Test
    void aMapOfIsWrittenWithItsKeysSortedAlsoInsideRecordsAndLists() {
        // Map.of's order is salted per JVM: eight keys come out sorted by chance once in 40,320 JVMs
        Map<String, Object> m = Map.of("h", 1, "c", 2, "f", 3, "a", 4, "g", 5, "b", 6, "e", 7, "d", 8);
        assertEquals(
                "{\"a\":4,\"b\":6,\"c\":2,\"d\":8,\"e\":7,\"f\":3,\"g\":5,\"h\":1}",
                Specs.toJson(m).replaceAll("\\s", ""));
        record Holder(Map<String, Object> metrics, List<Map<String, Object>> tried) {}
        String json = Specs.toJson(new Holder(m, List.of(m))).replaceAll("\\s", "");
        assertEquals(2, json.split("\"a\":4,\"b\":6,\"c\":2,\"d\":8,\"e\":7", -1).length - 1, json);
        // every other map keeps its own order, and reads back as a map
        assertEquals(
                "{\"z\":1,\"a\":2}", Specs.toJson(Specs.ordered("z", 1, "a", 2)).replaceAll("\\s", ""));
        assertEquals(Map.of("z", 1.0, "a", 2.0), Specs.GSON.fromJson("{\"z\":1,\"a\":2}", Map.class));
    }
}
