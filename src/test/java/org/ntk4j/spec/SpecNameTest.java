package org.ntk4j.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.gson.annotations.SerializedName;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every spec enum's JSON name is its constant's {@link SerializedName}: {@code json()}, {@code toString()}, {@code
 * of(String)} and Gson agree on it.
 */
class SpecNameTest {
    static final List<Class<? extends Enum<?>>> ENUMS = List.of(
            ActivationKind.class,
            Arch.class,
            DatasetKind.class,
            InitializerKind.class,
            LossKind.class,
            OptimizerKind.class,
            Parameterization.class,
            Pool.class,
            ScheduleKind.class,
            Shortcut.class,
            Spectrum.class,
            TargetEncoding.class);

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void jsonNamesAreTheSerializedNames() throws NoSuchFieldException {
        int constants = 0;
        for (Class<? extends Enum<?>> type : ENUMS) {
            for (Enum<?> c : type.getEnumConstants()) {
                String expected = type.getField(c.name())
                        .getAnnotation(SerializedName.class)
                        .value();
                SpecName n = (SpecName) c;
                assertEquals(expected, n.json(), type.getSimpleName() + "." + c.name());
                assertEquals(expected, c.toString());
                assertEquals(c, SpecName.of((Class) type, " " + expected.toUpperCase(java.util.Locale.ROOT) + " "));
                assertEquals("\"" + expected + "\"", Specs.GSON.toJson(c));
                constants++;
            }
        }
        assertEquals(45, constants);
        assertNull(DatasetKind.of("no-such-kind"));
        assertEquals(DatasetKind.WHITENED_LINEAR_TEACHER, DatasetKind.of("whitened-linear-teacher"));
    }
}
