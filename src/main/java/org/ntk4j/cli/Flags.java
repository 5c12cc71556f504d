package org.ntk4j.cli;

import org.ntk4j.OptionException;
import org.ntk4j.OptionKey;

/**
 * The library names a setting by its key ({@code perClass}, {@link OptionKey}); the command line spells it as an
 * option ({@code --per-class}). Every command's options are named so: the key in kebab case after two dashes.
 */
final class Flags {
    private Flags() {}

    /** The option that sets the library setting {@code key}: {@code perClass} → {@code --per-class}. */
    static String of(String key) {
        return "--" + OptionKey.kebab(key);
    }

    /** The message of {@code e} with its settings named as options. */
    static String message(OptionException e) {
        return e.message(Flags::of);
    }
}
