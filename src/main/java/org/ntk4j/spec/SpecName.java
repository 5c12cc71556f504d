package org.ntk4j.spec;

import java.util.Locale;

/** A closed choice in a spec whose constants have a lower-case JSON name ({@code "relu"}, {@code "ce"}, ...). */
public interface SpecName {
    /** The name used in spec JSON. */
    String json();

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
}
