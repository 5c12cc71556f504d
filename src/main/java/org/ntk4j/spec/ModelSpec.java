package org.ntk4j.spec;

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
    public static final List<String> ARCHS = List.of("mlp", "linear", "cnn", "vgg", "resnet", "densenet", "wrn");
    /** VGG depths (torchvision configurations A, B, D, E). */
    public static final List<Integer> VGG_DEPTHS = List.of(11, 13, 16, 19);
    /** ResNet shortcut kinds: 1×1 conv + BN projection (option B) or subsample + zero-pad (option A). */
    public static final List<String> SHORTCUTS = List.of("projection", "pad");
    /** Pooling after each conv of the "cnn" arch. */
    public static final List<String> POOLS = List.of("max", "avg", "none");

    public String name = "model";
    /**
     * mlp | linear (deep linear net: identity activation, no bias unless asked) | cnn (plain conv
     * stack) | vgg | resnet | densenet | wrn; see {@code org.ntk4j.model.Models} for each builder.
     */
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

    // ---- convolutional architectures (ignored by mlp/linear) ----
    /**
     * vgg: 11, 13, 16 or 19. resnet: 18 or 34 (4-stage CIFAR variant), else 2 + 2·S·n with S stages
     * and n basic blocks per stage (6n+2 for the 3-stage CIFAR ResNets). densenet: 3·n+4 (n layers
     * per block), or 6·n+4 with bottleneck. wrn: 6·b+4 (b blocks per group).
     */
    public Integer depth;
    /** Batch-norm after each conv; default true for resnet and densenet, false for cnn, vgg and wrn. */
    public Boolean batchNorm;
    /** densenet: growth rate k (channels each dense layer adds). */
    public int growth = 12;
    /** densenet: DenseNet-BC bottleneck layers (BN-φ-Conv1×1(4k)-BN-φ-Conv3×3(k)). */
    public boolean bottleneck = false;
    /** densenet: transition compression θ in (0, 1]; default 0.5 with bottleneck (BC), else 1. */
    public Double compression;
    /** wrn: widening factor k (channels 16k, 32k, 64k). */
    public int widen = 1;
    /**
     * cnn: conv widths; resnet: stage widths (default [16,32,64], or [64,128,256,512] for depth
     * 18/34); densenet: [stem width] (default 16, or 2·growth with bottleneck).
     */
    public int[] channels;
    /** cnn and vgg: hidden widths of the fully connected head between the conv stack and the readout. */
    public int[] head = new int[0];
    /** cnn: pooling after each conv, max | avg | none (2×2, stride 2). */
    public String pool = "max";
    /** resnet: projection (option B: 1×1 conv + BN, the default) | pad (option A: parameter-free). */
    public String shortcut = "projection";
    /** σ_w of the first conv layer (wrn uses 6.0 in seed 001); default sigmaW. */
    public Double firstSigmaW;
    /** mlp / linear: σ_w per dense layer, input side first (one per layer, widths.length + 1); default sigmaW. */
    public double[] layerSigmaW;

    public boolean batchNormOn() {
        return batchNorm != null ? batchNorm : ("resnet".equals(arch) || "densenet".equals(arch));
    }

    public double compressionValue() {
        return compression != null ? compression : (bottleneck ? 0.5 : 1.0);
    }

    public double firstSigmaWValue() {
        return firstSigmaW != null ? firstSigmaW : sigmaW;
    }

    public boolean biasOn() {
        return bias != null ? bias : !"linear".equals(arch);
    }

    /** σ_w of dense layer l (1-based) of an MLP. */
    public double sigmaW(int layer) {
        return layerSigmaW != null ? layerSigmaW[layer - 1] : sigmaW;
    }

    /** Checks every field; throws a one-line UserException naming the first bad one. */
    public ModelSpec validate(String source) {
        Specs.Problems p = new Specs.Problems(source);
        p.require(layerSigmaW == null || (widths != null && layerSigmaW.length == widths.length + 1
                && java.util.Arrays.stream(layerSigmaW).allMatch(v -> v > 0 && Double.isFinite(v))), "layerSigmaW",
                "must list one positive σ_w per dense layer (" + (widths == null ? "?" : widths.length + 1) + ")");
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
        checkActivation(activation);
        arch = arch.toLowerCase(Locale.ROOT);
        validateConv(source);
        return this;
    }

    /**
     * The activation names a spec may use; {@code org.ntk4j.model.Activation.Kind} has one constant
     * per name (the spec layer sits below the model layer, so it keeps its own list).
     */
    public static final List<String> ACTIVATIONS = List.of("relu", "tanh", "erf", "linear", "quadratic");

    /** Throws the same UserException as {@code Activation.Kind.parse} for a name not in {@link #ACTIVATIONS}. */
    static void checkActivation(String s) {
        if (!ACTIVATIONS.contains(s.trim().toLowerCase(Locale.ROOT))) {
            throw new UserException("unknown activation '" + s + "'; expected one of " + String.join(", ", ACTIVATIONS));
        }
    }

    private void validateConv(String source) {
        if ("mlp".equals(arch) || "linear".equals(arch)) {
            return;
        }
        Specs.Problems p = new Specs.Problems(source);
        p.require(input.length == 3, "input", "must be [channels, height, width] for arch " + arch
                + " (got " + Arrays.toString(input) + ")");
        p.require(channels == null || (channels.length > 0 && Arrays.stream(channels).allMatch(v -> v > 0)),
                "channels", "must be a non-empty list of positive integers");
        p.require(head != null && Arrays.stream(head).allMatch(v -> v > 0), "head", "must be positive integers");
        p.require(firstSigmaW == null || (firstSigmaW > 0 && Double.isFinite(firstSigmaW)), "firstSigmaW",
                "must be a positive number");
        p.check();
        int d = depth == null ? -1 : depth;
        switch (arch) {
            case "cnn":
                p.require(channels != null, "channels", "is required for arch cnn, e.g. [16,32]");
                p.require(POOLS.contains(String.valueOf(pool)), "pool", "must be one of " + POOLS + " (got " + pool + ")");
                break;
            case "vgg":
                p.require(VGG_DEPTHS.contains(d), "depth", "must be one of " + VGG_DEPTHS + " for arch vgg (got " + depth + ")");
                p.require(input[1] >= 32 && input[2] >= 32, "input", "must be at least 32×32 for vgg's five 2×2 max-pools (got "
                        + Arrays.toString(input) + ")");
                break;
            case "resnet": {
                int stages = channels != null ? channels.length : (d == 18 || d == 34 ? 4 : 3);
                boolean imagenetStyle = d == 18 || d == 34;
                p.require(imagenetStyle ? stages == 4 : d > 2 && (d - 2) % (2 * stages) == 0, "depth",
                        "must be 18 or 34 (4 stages), or 2 + 2·S·n for S = " + stages + " stages, e.g. " + (2 + 2 * stages) + ", "
                                + (2 + 4 * stages) + ", " + (2 + 6 * stages) + " (got "
                        + depth + ")");
                p.require(SHORTCUTS.contains(String.valueOf(shortcut)), "shortcut", "must be one of " + SHORTCUTS
                        + " (got " + shortcut + ")");
                break;
            }
            case "densenet":
                p.require(d > 4 && (d - 4) % (bottleneck ? 6 : 3) == 0, "depth", bottleneck
                        ? "must be 6·n+4 with bottleneck, e.g. 40, 100, 250 (got " + depth + ")"
                        : "must be 3·n+4, e.g. 40, 100 (got " + depth + ")");
                p.require(growth > 0, "growth", "must be a positive integer (got " + growth + ")");
                p.require(compressionValue() > 0 && compressionValue() <= 1, "compression", "must be in (0, 1] (got "
                        + compression + ")");
                p.require(channels == null || channels.length == 1, "channels", "must be [stem width] for densenet");
                p.require(batchNorm == null || batchNorm, "batchNorm", "must be true for densenet (BN-φ-conv layers)");
                break;
            case "wrn":
                p.require(d > 4 && (d - 4) % 6 == 0, "depth", "must be 6·b+4 for arch wrn, e.g. 10, 16, 28 (got " + depth + ")");
                p.require(widen > 0, "widen", "must be a positive integer (got " + widen + ")");
                break;
            default:
                break;
        }
        p.check();
    }

    /**
     * Resolves {@code ref}: a path to a JSON file, or the name of a spec in the project's
     * {@code models/} folder (e.g. {@code mlp-relu}).
     */
    public static ModelSpec resolve(String ref) {
        Specs.Source src = Specs.source(ref, "models", "model");
        return Specs.parse(src.json(), ModelSpec.class, src.origin()).validate(src.origin());
    }

    public static ModelSpec parse(String json, String source) {
        return Specs.parse(json, ModelSpec.class, source).validate(source);
    }

    /** The project's models/ folder (system property ntk4j.root, else the working directory). */
    public static Path modelsDir() {
        return Specs.projectDir("models");
    }

    /** Names of the specs in models/ and of those bundled in the jar. */
    public static List<String> available() {
        return Specs.names("models");
    }

    public String toJson() {
        return Specs.toJson(this);
    }
}
