package org.ntk4j.spec;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.ntk4j.UserException;

/** Reads spec JSON strictly: unknown fields and malformed values are one-line errors naming the file and field. */
public final class Specs {
    public static final Gson GSON = new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create();

    private Specs() {}

    /** Parses {@code json} (from {@code source}, for messages) into {@code type}, rejecting unknown fields. */
    public static <T> T parse(String json, Class<T> type, String source) {
        JsonElement el;
        try {
            el = JsonParser.parseString(json);
        } catch (JsonParseException e) {
            throw new UserException(source + ": not valid JSON (" + firstLine(e.getMessage()) + ")");
        }
        if (!el.isJsonObject()) {
            throw new UserException(source + ": expected a JSON object");
        }
        JsonObject obj = el.getAsJsonObject();
        Set<String> allowed = fieldNames(type);
        for (String key : obj.keySet()) {
            if (!allowed.contains(key)) {
                throw new UserException(source + ": unknown field '" + key + "'; allowed fields: " + String.join(", ", allowed));
            }
        }
        try {
            return GSON.fromJson(obj, type);
        } catch (JsonParseException | NumberFormatException | IllegalStateException e) {
            throw new UserException(source + ": bad value (" + firstLine(e.getMessage()) + ")");
        }
    }

    public static <T> T read(Path file, Class<T> type) {
        try {
            return parse(Files.readString(file), type, file.toString());
        } catch (IOException e) {
            throw new UserException(file + ": cannot read (" + e.getMessage() + ")");
        }
    }

    public static String toJson(Object o) {
        return GSON.toJson(o);
    }

    static Set<String> fieldNames(Class<?> type) {
        Set<String> names = new TreeSet<>();
        for (Field f : type.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && !Modifier.isTransient(f.getModifiers())) {
                names.add(f.getName());
            }
        }
        return names;
    }

    static String firstLine(String s) {
        if (s == null) {
            return "unknown error";
        }
        int i = s.indexOf('\n');
        return i < 0 ? s : s.substring(0, i);
    }

    /** The project folder {@code name} (models/, datasets/) under system property ntk4j.root, else the working directory. */
    public static Path projectDir(String name) {
        return Path.of(System.getProperty("ntk4j.root", ".")).resolve(name);
    }

    /** Names (without .json) of the spec files in {@code dir}, sorted; empty if it is missing. */
    public static List<String> namesIn(Path dir) {
        try (var s = java.nio.file.Files.list(dir)) {
            return s.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - 5)).sorted().toList();
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    /**
     * The spec file {@code ref} names: a path to a file, or a name (with or without .json) in {@code dir};
     * otherwise a UserException "unknown WHAT 'ref'" listing the names in {@code dir}.
     */
    public static Path specFile(String ref, Path dir, String what) {
        Path file = Path.of(ref);
        if (java.nio.file.Files.isRegularFile(file)) {
            return file;
        }
        Path named = dir.resolve(ref.endsWith(".json") ? ref : ref + ".json");
        if (!java.nio.file.Files.isRegularFile(named)) {
            throw new UserException("unknown " + what + " '" + ref + "': not a file, and not one of " + namesIn(dir));
        }
        return named;
    }

    /** Collects validation problems; {@link #check()} throws one UserException listing the first. */
    public static final class Problems {
        private final String source;
        private final List<String> list = new ArrayList<>();

        public Problems(String source) {
            this.source = source;
        }

        public void require(boolean ok, String field, String expected) {
            if (!ok) {
                list.add("field '" + field + "' " + expected);
            }
        }

        public void check() {
            if (!list.isEmpty()) {
                throw new UserException(source + ": " + list.get(0));
            }
        }
    }
}
