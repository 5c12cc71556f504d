package org.ntk4j;

import java.util.Locale;

/**
 * A setting of the library that the user chooses (a builder method of a request or job): its {@link #key()} is
 * the name the library's messages use, and a front end maps it to its own spelling (the CLI to {@code --per-class},
 * a Spark job to its flags). Implemented by small enums beside the classes that check the settings.
 */
public interface OptionKey {
    /** The constant's name ({@code PER_CLASS}); enums implement it. */
    String name();

    /** The library's name of the setting: the constant's name in lower camel case ({@code perClass}). */
    default String key() {
        String[] parts = name().toLowerCase(Locale.ROOT).split("_");
        StringBuilder b = new StringBuilder(parts[0]);
        for (int i = 1; i < parts.length; i++) {
            b.append(Character.toUpperCase(parts[i].charAt(0))).append(parts[i].substring(1));
        }
        return b.toString();
    }

    /** A key in kebab case ({@code perClass} → {@code per-class}), as command lines spell their options. */
    static String kebab(String key) {
        return key.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
