package org.ntk4j;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * A {@link UserException} about the value of one or more settings. The message is made of parts: each
 * {@link OptionKey} among them is a setting, everything else text. {@link #getMessage()} names the settings by
 * their library keys ({@code n must be >= 1 (got 0)}); a front end renders the same parts with its own names
 * ({@link #message(Function)}: {@code --n must be >= 1 (got 0)} on the command line).
 */
public class OptionException extends UserException {
    private static final long serialVersionUID = 1L;

    /** The parts: a String, or the key of a setting wrapped as {@link Key}. */
    private final List<Object> parts;

    /** A setting's library key inside the parts. */
    private record Key(String key) implements java.io.Serializable {}

    /**
     * @param parts the message in order: {@link OptionKey}s name settings, an {@code Object[]} stands for its
     *     elements, anything else is text ({@code String.valueOf})
     */
    public OptionException(Object... parts) {
        this(flatten(parts));
    }

    private static List<Object> flatten(Object[] parts) {
        return Arrays.stream(parts)
                .flatMap(p -> p instanceof Object[] a ? flatten(a).stream() : java.util.stream.Stream.of(p))
                .map(p -> p instanceof OptionKey o ? new Key(o.key()) : p instanceof Key ? p : String.valueOf(p))
                .toList();
    }

    private OptionException(List<Object> parts) {
        super(render(parts, k -> k));
        this.parts = parts;
    }

    /** The message with every setting named by {@code name} (given the library key, e.g. {@code perClass}). */
    public String message(Function<String, String> name) {
        return render(parts, name);
    }

    /** The library keys of the settings the message names, in order. */
    public List<String> keys() {
        return parts.stream()
                .filter(Key.class::isInstance)
                .map(p -> ((Key) p).key())
                .toList();
    }

    private static String render(List<Object> parts, Function<String, String> name) {
        StringBuilder b = new StringBuilder();
        for (Object p : parts) {
            b.append(p instanceof Key k ? name.apply(k.key()) : (String) p);
        }
        return b.toString();
    }
}
