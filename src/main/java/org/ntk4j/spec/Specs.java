package org.ntk4j.spec;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.TypeAdapter;
import com.google.gson.TypeAdapterFactory;
import com.google.gson.reflect.TypeToken;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonWriter;
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
    public static final Gson GSON = new GsonBuilder()
            .setPrettyPrinting()
            .serializeSpecialFloatingPointValues()
            .registerTypeAdapterFactory(new ViaBuilder())
            .registerTypeAdapterFactory(new StableMapOrder())
            .create();

    /**
     * Writes a {@code Map.of} map (two or more entries) with its keys sorted: its iteration order is salted afresh in
     * every JVM, so the same results would be written in another order each run. Every other map keeps its own order
     * (a {@link java.util.LinkedHashMap}, {@link #ordered}, a sorted map); read as any map.
     */
    private static final class StableMapOrder implements TypeAdapterFactory {
        private static final Class<?> SALTED = java.util.Map.of(1, 1, 2, 2).getClass();

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public <T> TypeAdapter<T> create(Gson gson, TypeToken<T> type) {
            if (!java.util.Map.class.isAssignableFrom(type.getRawType())) {
                return null;
            }
            TypeAdapter<T> delegate = gson.getDelegateAdapter(this, type);
            return new TypeAdapter<T>() {
                @Override
                public void write(JsonWriter out, T value) throws IOException {
                    if (value != null && value.getClass() == SALTED) {
                        java.util.Map<Object, Object> sorted =
                                new java.util.TreeMap<>(java.util.Comparator.comparing(String::valueOf));
                        sorted.putAll((java.util.Map) value);
                        delegate.write(out, (T) sorted);
                    } else {
                        delegate.write(out, value);
                    }
                }

                @Override
                public T read(JsonReader in) throws IOException {
                    return delegate.read(in);
                }
            };
        }
    }

    /**
     * Reads the spec records through their builders, so that fields missing from a JSON file (an
     * args.json written before a field existed) take the same defaults as in a spec file; writes
     * them as Gson writes any record (components in order, nulls left out).
     */
    private static final class ViaBuilder implements TypeAdapterFactory {
        @Override
        @SuppressWarnings("unchecked")
        public <T> TypeAdapter<T> create(Gson gson, TypeToken<T> type) {
            if (type.getRawType() == ModelSpec.class) {
                return (TypeAdapter<T>) adapter(
                        gson,
                        gson.getDelegateAdapter(this, TypeToken.get(ModelSpec.class)),
                        ModelSpec.Builder.class,
                        ModelSpec.Builder::build);
            }
            if (type.getRawType() == TrainSpec.class) {
                return (TypeAdapter<T>) adapter(
                        gson,
                        gson.getDelegateAdapter(this, TypeToken.get(TrainSpec.class)),
                        TrainSpec.Builder.class,
                        TrainSpec.Builder::build);
            }
            if (type.getRawType() == DatasetSpec.class) {
                return (TypeAdapter<T>) adapter(
                        gson,
                        gson.getDelegateAdapter(this, TypeToken.get(DatasetSpec.class)),
                        DatasetSpec.Builder.class,
                        DatasetSpec.Builder::build);
            }
            return null;
        }

        private static <R, B> TypeAdapter<R> adapter(
                Gson gson, TypeAdapter<R> writer, Class<B> builder, java.util.function.Function<B, R> build) {
            TypeAdapter<B> reader = gson.getAdapter(builder);
            return new TypeAdapter<R>() {
                @Override
                public void write(JsonWriter out, R value) throws IOException {
                    writer.write(out, value);
                }

                @Override
                public R read(JsonReader in) throws IOException {
                    B b = reader.read(in);
                    return b == null ? null : build.apply(b);
                }
            };
        }
    }

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
                throw new UserException(
                        source + ": unknown field '" + key + "'; allowed fields: " + String.join(", ", allowed));
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

    /**
     * A map of {@code keysAndValues} (key, value, key, value, ...) that keeps their order, for JSON written from a
     * literal: {@code Map.of}'s iteration order changes from one JVM to the next ({@link #toJson} writes such a map
     * with its keys sorted, so that a file written from it does not differ run to run; this keeps the literal's order).
     */
    public static java.util.Map<String, Object> ordered(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values come in pairs");
        }
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
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
            return s.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - 5))
                    .sorted()
                    .toList();
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    /** Where the jar keeps the project's spec folders (pom.xml copies models/ and datasets/ there). */
    static final String BUNDLED = "org/ntk4j/specs/";

    /**
     * Names of the specs in the project folder {@code folder} (models, datasets) together with those
     * bundled in the jar, sorted: a jar used outside the checkout still knows its models.
     */
    public static List<String> names(String folder) {
        java.util.TreeSet<String> all = new java.util.TreeSet<>(namesIn(projectDir(folder)));
        all.addAll(bundledNames(folder));
        return List.copyOf(all);
    }

    /** Names of the specs bundled on the classpath under {@code folder}. */
    static List<String> bundledNames(String folder) {
        List<String> out = new ArrayList<>();
        java.net.URL url = Specs.class.getClassLoader().getResource(BUNDLED + folder + "/");
        if (url == null) {
            url = Specs.class.getClassLoader().getResource(BUNDLED + folder);
        }
        if (url == null) {
            return out;
        }
        try {
            if ("jar".equals(url.getProtocol())) {
                java.net.JarURLConnection c = (java.net.JarURLConnection) url.openConnection();
                c.setUseCaches(false);
                try (java.util.jar.JarFile jar = c.getJarFile()) {
                    String prefix = BUNDLED + folder + "/";
                    jar.stream()
                            .map(java.util.jar.JarEntry::getName)
                            .filter(n ->
                                    n.startsWith(prefix) && n.endsWith(".json") && n.indexOf('/', prefix.length()) < 0)
                            .forEach(n -> out.add(n.substring(prefix.length(), n.length() - 5)));
                }
            } else if ("file".equals(url.getProtocol())) {
                out.addAll(namesIn(Path.of(url.toURI())));
            }
        } catch (IOException | java.net.URISyntaxException e) {
            return out;
        }
        java.util.Collections.sort(out);
        return out;
    }

    /** Whether {@code name} is a spec in the project folder or bundled in the jar. */
    public static boolean isNamed(String name, String folder) {
        String n = name.endsWith(".json") ? name : name + ".json";
        return Files.isRegularFile(projectDir(folder).resolve(n))
                || Specs.class.getClassLoader().getResource(BUNDLED + folder + "/" + n) != null;
    }

    /** A spec's JSON text and where it came from (for messages). */
    public record Source(String json, String origin) {}

    /**
     * The spec {@code ref} names: a path to a file, a name (with or without .json) in the project
     * folder {@code folder}, or, when neither exists, a spec of that name bundled in the jar;
     * otherwise a UserException "unknown WHAT 'ref'" listing the names.
     */
    public static Source source(String ref, String folder, String what) {
        Path file = Path.of(ref);
        String n = ref.endsWith(".json") ? ref : ref + ".json";
        Path named = projectDir(folder).resolve(n);
        Path f = Files.isRegularFile(file) ? file : Files.isRegularFile(named) ? named : null;
        if (f != null) {
            try {
                return new Source(Files.readString(f), f.toString());
            } catch (IOException e) {
                throw new UserException(f + ": cannot read (" + e.getMessage() + ")");
            }
        }
        if (!n.contains("/") && !n.contains("\\")) {
            try (java.io.InputStream in =
                    Specs.class.getClassLoader().getResourceAsStream(BUNDLED + folder + "/" + n)) {
                if (in != null) {
                    return new Source(
                            new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8),
                            "bundled " + folder + "/" + n);
                }
            } catch (IOException e) {
                throw new UserException("bundled " + folder + "/" + n + ": cannot read (" + e.getMessage() + ")");
            }
        }
        throw new UserException("unknown " + what + " '" + ref + "': not a file, and not one of " + names(folder));
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
