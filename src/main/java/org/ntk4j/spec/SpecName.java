package org.ntk4j.spec;

import com.google.gson.annotations.SerializedName;
import java.util.Locale;

/**
 * A closed choice in a spec whose constants have a JSON name ({@code "relu"}, {@code "ce"}, {@code
 * "warmup-cosine"}): the name of the constant's {@link SerializedName}, which is how Gson writes and reads it.
 * An enum implementing it writes {@code toString()} as {@code json()} and offers {@code of(String)} through
 * {@link #of(Class, String)}.
 */
public interface SpecName {
    /** The constant's Java name (enums implement it). */
    String name();

    /** The constant's enum type (enums implement it). */
    Class<?> getDeclaringClass();

    /** The name used in spec JSON: the constant's {@link SerializedName}, else its Java name in lower case. */
    default String json() {
        return JsonNames.of(this);
    }

    /**
     * The constant of {@code type} whose JSON name is {@code s} (any case, surrounding blanks ignored),
     * or null if none or {@code s} is null.
     */
    static <E extends Enum<E> & SpecName> E of(Class<E> type, String s) {
        if (s == null) {
            return null;
        }
        String n = s.trim().toLowerCase(Locale.ROOT);
        for (E v : type.getEnumConstants()) {
            if (v.json().equals(n)) {
                return v;
            }
        }
        return null;
    }

    /** The JSON names of the constants, read once per enum from their annotations. */
    final class JsonNames {
        private static final ClassValue<java.util.Map<String, String>> NAMES = new ClassValue<>() {
            @Override
            protected java.util.Map<String, String> computeValue(Class<?> type) {
                java.util.Map<String, String> m = new java.util.HashMap<>();
                for (java.lang.reflect.Field f : type.getFields()) {
                    if (f.isEnumConstant()) {
                        SerializedName n = f.getAnnotation(SerializedName.class);
                        m.put(f.getName(), n != null ? n.value() : f.getName().toLowerCase(Locale.ROOT));
                    }
                }
                return m;
            }
        };

        private JsonNames() {}

        static String of(SpecName v) {
            return NAMES.get(v.getDeclaringClass()).get(v.name());
        }
    }
}
