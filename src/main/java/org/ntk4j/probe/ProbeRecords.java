package org.ntk4j.probe;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Probe records as users see them: arrays become lists, so a record prints its values (not {@code [D@1b6d3586}). */
final class ProbeRecords {
    private ProbeRecords() {}

    /** The record with every primitive or object array replaced by an unmodifiable list of its values, in order. */
    static Map<String, Object> readable(Map<String, Object> r) {
        Map<String, Object> out = new LinkedHashMap<>();
        r.forEach((k, v) -> out.put(k, readable(v)));
        return out;
    }

    private static Object readable(Object v) {
        if (v instanceof double[] a) {
            return Arrays.stream(a).boxed().toList();
        }
        if (v instanceof float[] a) {
            Float[] b = new Float[a.length];
            for (int i = 0; i < a.length; i++) {
                b[i] = a[i];
            }
            return List.of(b);
        }
        if (v instanceof int[] a) {
            return Arrays.stream(a).boxed().toList();
        }
        if (v instanceof long[] a) {
            return Arrays.stream(a).boxed().toList();
        }
        if (v instanceof Object[] a) {
            return Arrays.stream(a).map(ProbeRecords::readable).toList();
        }
        return v;
    }
}
