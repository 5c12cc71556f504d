package org.ntk4j.spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.ntk4j.UserException;

/**
 * A network described in JSON (files in {@code models/}). Example:
 * <pre>{"name":"mlp-relu","arch":"mlp","input":[1,28,28],"widths":[512,512],"outputs":10,
 *  "activation":"relu","parameterization":"standard","initializer":"gaussian","sigmaW":1.4142,"sigmaB":0.0}</pre>
 */
public final class ModelSpec {
    /** Architectures the builder knows. */
    public static final List<String> ARCHS = List.of("mlp", "linear");

    public String name = "model";
    /** mlp | linear (deep linear net: identity activation, no bias unless asked). */
    public String arch;
    /** Per-sample input shape, channel-first, e.g. [1,28,28] or [3072]. */
    public int[] input;
    /** Hidden widths, input side first. */
    public int[] widths = new int[0];
    public int outputs;
    public String activation = "relu";
    /** standard | ntk */
    public String parameterization = "standard";
    /** gaussian | he | lecun | he_fan_out | torch_default (standard parameterisation only). */
    public String initializer = "gaussian";
    public double sigmaW = 1.0;
    public double sigmaB = 0.0;
    public Boolean bias;
    /** Output multiplier κ: f = κ·(last layer); 1 by default. */
    public double outputScale = 1.0;

    public boolean biasOn() {
        return bias != null ? bias : !"linear".equals(arch);
    }

    /** Checks every field; throws a one-line UserException naming the first bad one. */
    public ModelSpec validate(String source) {
        Specs.Problems p = new Specs.Problems(source);
        p.require(arch != null && ARCHS.contains(arch.toLowerCase(Locale.ROOT)), "arch",
                "must be one of " + ARCHS + " (got " + arch + ")");
        p.require(input != null && input.length >= 1 && Arrays.stream(input).allMatch(v -> v > 0), "input",
                "must be a non-empty list of positive sizes, e.g. [1,28,28]");
        p.require(widths != null && Arrays.stream(widths).allMatch(v -> v > 0), "widths", "must be positive integers");
        p.require(outputs > 0, "outputs", "must be a positive integer (got " + outputs + ")");
        p.require(List.of("standard", "ntk").contains(String.valueOf(parameterization).toLowerCase(Locale.ROOT)),
                "parameterization", "must be standard or ntk (got " + parameterization + ")");
        p.require(List.of("gaussian", "he", "lecun", "he_fan_out", "torch_default")
                        .contains(String.valueOf(initializer).toLowerCase(Locale.ROOT)),
                "initializer", "must be gaussian, he, lecun, he_fan_out or torch_default (got " + initializer + ")");
        p.require(sigmaW > 0 && Double.isFinite(sigmaW), "sigmaW", "must be a positive number");
        p.require(sigmaB >= 0 && Double.isFinite(sigmaB), "sigmaB", "must be a non-negative number");
        p.require(Double.isFinite(outputScale) && outputScale != 0, "outputScale", "must be a non-zero number");
        p.check();
        org.ntk4j.model.Activation.Kind.parse(activation);
        arch = arch.toLowerCase(Locale.ROOT);
        return this;
    }

    /**
     * Resolves {@code ref}: a path to a JSON file, or the name of a spec in the project's
     * {@code models/} folder (e.g. {@code mlp-relu}).
     */
    public static ModelSpec resolve(String ref) {
        Path file = Path.of(ref);
        if (!Files.isRegularFile(file)) {
            Path named = modelsDir().resolve(ref.endsWith(".json") ? ref : ref + ".json");
            if (!Files.isRegularFile(named)) {
                throw new UserException("unknown model '" + ref + "': not a file, and not one of " + available());
            }
            file = named;
        }
        return Specs.read(file, ModelSpec.class).validate(file.toString());
    }

    public static ModelSpec parse(String json, String source) {
        return Specs.parse(json, ModelSpec.class, source).validate(source);
    }

    /** The project's models/ folder (system property ntk4j.root, else the working directory). */
    public static Path modelsDir() {
        return Path.of(System.getProperty("ntk4j.root", ".")).resolve("models");
    }

    /** Names of the specs in models/. */
    public static List<String> available() {
        try (var s = Files.list(modelsDir())) {
            return s.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - 5)).sorted().toList();
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    public String toJson() {
        return Specs.toJson(this);
    }
}
