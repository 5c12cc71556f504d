package org.ntk4j.spec;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.ntk4j.UserException;

/**
 * A network described in JSON (files in {@code models/}); immutable. Example:
 * <pre>{"name":"mlp-relu","arch":"mlp","input":[1,28,28],"widths":[512,512],"outputs":10,
 *  "activation":"relu","parameterization":"standard","initializer":"gaussian","sigmaW":1.4142,"sigmaB":0.0}</pre>
 * Read one with {@link #resolve} or {@link #parse} (missing fields take the {@link Builder}'s
 * defaults); derive a variant with {@code spec.toBuilder().outputs(10).build()}.
 *
 * @param name name
 * @param arch mlp | linear (deep linear net: identity activation, no bias unless asked) | cnn (plain conv stack) | vgg | resnet | densenet | wrn; see {@code org.ntk4j.model.Models} for each builder
 * @param input per-sample input shape, channel-first, e.g. [1,28,28] or [3072]
 * @param widths hidden widths, input side first
 * @param outputs outputs
 * @param activation activation
 * @param parameterization standard | ntk
 * @param initializer gaussian | he | lecun | he_fan_out | torch_default (standard parameterisation only)
 * @param sigmaW sigmaW
 * @param sigmaB sigmaB
 * @param bias bias
 * @param outputScale output multiplier κ: f = κ·(last layer); 1 by default
 * @param depth vgg: 11, 13, 16 or 19. resnet: 18 or 34 (4-stage CIFAR variant), else 2 + 2·S·n with S stages and n basic blocks per stage (6n+2 for the 3-stage CIFAR ResNets). densenet: 3·n+4 (n layers per block), or 6·n+4 with bottleneck. wrn: 6·b+4 (b blocks per group)
 * @param batchNorm batch-norm after each conv; default true for resnet and densenet, false for cnn, vgg and wrn
 * @param growth densenet: growth rate k (channels each dense layer adds)
 * @param bottleneck densenet: DenseNet-BC bottleneck layers (BN-φ-Conv1×1(4k)-BN-φ-Conv3×3(k))
 * @param compression densenet: transition compression θ in (0, 1]; default 0.5 with bottleneck (BC), else 1
 * @param widen wrn: widening factor k (channels 16k, 32k, 64k)
 * @param channels cnn: conv widths; resnet: stage widths (default [16,32,64], or [64,128,256,512] for depth 18/34); densenet: [stem width] (default 16, or 2·growth with bottleneck)
 * @param head cnn and vgg: hidden widths of the fully connected head between the conv stack and the readout
 * @param pool cnn: pooling after each conv, max | avg | none (2×2, stride 2)
 * @param shortcut resnet: projection (option B: 1×1 conv + BN, the default) | pad (option A: parameter-free)
 * @param firstSigmaW σ_w of the first conv layer (the wide ResNet of Atanasov, Bordelon & Pehlevan, "Neural networks as kernel learners: the silent alignment effect", uses 6.0); default sigmaW
 * @param layerSigmaW mlp / linear: σ_w per dense layer, input side first (one per layer, widths.length + 1); default sigmaW
 * @param layerNorm mlp / linear: layer normalisation (Ba, Kiros &amp; Hinton 2016) after every hidden dense layer, before
 *     its activation; cnn / vgg: the same in the dense head; default false
 */
public record ModelSpec(
        String name,
        Arch arch,
        int[] input,
        int[] widths,
        int outputs,
        ActivationKind activation,
        Parameterization parameterization,
        InitializerKind initializer,
        double sigmaW,
        double sigmaB,
        Boolean bias,
        double outputScale,
        Integer depth,
        Boolean batchNorm,
        int growth,
        boolean bottleneck,
        Double compression,
        int widen,
        int[] channels,
        int[] head,
        Pool pool,
        Shortcut shortcut,
        Double firstSigmaW,
        double[] layerSigmaW,
        Boolean layerNorm) {
    /** Architectures a spec file may name. */
    public static final List<String> ARCHS = List.of("mlp", "linear", "cnn", "vgg", "resnet", "densenet", "wrn");
    /** VGG depths (torchvision configurations A, B, D, E). */
    public static final List<Integer> VGG_DEPTHS = List.of(11, 13, 16, 19);
    /** ResNet shortcut kinds: 1×1 conv + BN projection (option B) or subsample + zero-pad (option A). */
    public static final List<String> SHORTCUTS = List.of("projection", "pad");
    /** Pooling after each conv of the "cnn" arch. */
    public static final List<String> POOLS = List.of("max", "avg", "none");
    /**
     * The activation names a spec may use: one per {@link ActivationKind}.
     */
    public static final List<String> ACTIVATIONS = List.of("relu", "tanh", "erf", "linear", "quadratic");

    /** A builder with the defaults a spec file's missing fields take. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this spec's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.name = name;
        b.arch = arch == null ? null : arch.json();
        b.input = input;
        b.widths = widths;
        b.outputs = outputs;
        b.activation = activation == null ? null : activation.json();
        b.parameterization = parameterization == null ? null : parameterization.json();
        b.initializer = initializer == null ? null : initializer.json();
        b.sigmaW = sigmaW;
        b.sigmaB = sigmaB;
        b.bias = bias;
        b.outputScale = outputScale;
        b.depth = depth;
        b.batchNorm = batchNorm;
        b.growth = growth;
        b.bottleneck = bottleneck;
        b.compression = compression;
        b.widen = widen;
        b.channels = channels;
        b.head = head;
        b.pool = pool == null ? null : pool.json();
        b.shortcut = shortcut == null ? null : shortcut.json();
        b.firstSigmaW = firstSigmaW;
        b.layerSigmaW = layerSigmaW;
        b.layerNorm = layerNorm;
        return b;
    }

    /** Checks every field (see {@link Builder#validate}); returns the spec with its names normalised. */
    public ModelSpec validate(String source) {
        return toBuilder().validate(source);
    }

    public boolean batchNormOn() {
        return batchNorm != null ? batchNorm : (arch == Arch.RESNET || arch == Arch.DENSENET);
    }

    public double compressionValue() {
        return compression != null ? compression : (bottleneck ? 0.5 : 1.0);
    }

    public double firstSigmaWValue() {
        return firstSigmaW != null ? firstSigmaW : sigmaW;
    }

    /** Whether hidden dense layers are followed by a LayerNorm. */
    public boolean layerNormOn() {
        return layerNorm != null && layerNorm;
    }

    public boolean biasOn() {
        return bias != null ? bias : arch != Arch.LINEAR;
    }

    /** σ_w of dense layer l (1-based) of an MLP. */
    public double sigmaW(int layer) {
        return layerSigmaW != null ? layerSigmaW[layer - 1] : sigmaW;
    }

    /**
     * Resolves {@code ref}: a path to a JSON file, or the name of a spec in the project's
     * {@code models/} folder (e.g. {@code mlp-relu}).
     */
    public static ModelSpec resolve(String ref) {
        Specs.Source src = Specs.source(ref, "models", "model");
        return Specs.parse(src.json(), Builder.class, src.origin()).validate(src.origin());
    }

    public static ModelSpec parse(String json, String source) {
        return Specs.parse(json, Builder.class, source).validate(source);
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

    /**
     * A spec under construction, and the form Gson reads spec files into: the closed choices are
     * held as their JSON names until {@link #validate} checks them (with the messages listing
     * what is allowed) or {@link #build} maps them to their enums.
     */
    public static final class Builder {
        public String name = "model";
        public String arch;
        public int[] input;
        public int[] widths = new int[0];
        public int outputs;
        public String activation = "relu";
        public String parameterization = "standard";
        public String initializer = "gaussian";
        public double sigmaW = 1.0;
        public double sigmaB = 0.0;
        public Boolean bias;
        public double outputScale = 1.0;
        public Integer depth;
        public Boolean batchNorm;
        public int growth = 12;
        public boolean bottleneck = false;
        public Double compression;
        public int widen = 1;
        public int[] channels;
        public int[] head = new int[0];
        public String pool = "max";
        public String shortcut = "projection";
        public Double firstSigmaW;
        public double[] layerSigmaW;
        public Boolean layerNorm;

        public Builder() {}

        public Builder name(String v) {
            this.name = v;
            return this;
        }

        public Builder arch(Arch v) {
            this.arch = v == null ? null : v.json();
            return this;
        }

        public Builder arch(String v) {
            this.arch = v;
            return this;
        }

        public Builder input(int[] v) {
            this.input = v;
            return this;
        }

        public Builder widths(int[] v) {
            this.widths = v;
            return this;
        }

        public Builder outputs(int v) {
            this.outputs = v;
            return this;
        }

        public Builder activation(ActivationKind v) {
            this.activation = v == null ? null : v.json();
            return this;
        }

        public Builder activation(String v) {
            this.activation = v;
            return this;
        }

        public Builder parameterization(Parameterization v) {
            this.parameterization = v == null ? null : v.json();
            return this;
        }

        public Builder parameterization(String v) {
            this.parameterization = v;
            return this;
        }

        public Builder initializer(InitializerKind v) {
            this.initializer = v == null ? null : v.json();
            return this;
        }

        public Builder initializer(String v) {
            this.initializer = v;
            return this;
        }

        public Builder sigmaW(double v) {
            this.sigmaW = v;
            return this;
        }

        public Builder sigmaB(double v) {
            this.sigmaB = v;
            return this;
        }

        public Builder bias(Boolean v) {
            this.bias = v;
            return this;
        }

        public Builder outputScale(double v) {
            this.outputScale = v;
            return this;
        }

        public Builder depth(Integer v) {
            this.depth = v;
            return this;
        }

        public Builder batchNorm(Boolean v) {
            this.batchNorm = v;
            return this;
        }

        public Builder growth(int v) {
            this.growth = v;
            return this;
        }

        public Builder bottleneck(boolean v) {
            this.bottleneck = v;
            return this;
        }

        public Builder compression(Double v) {
            this.compression = v;
            return this;
        }

        public Builder widen(int v) {
            this.widen = v;
            return this;
        }

        public Builder channels(int[] v) {
            this.channels = v;
            return this;
        }

        public Builder head(int[] v) {
            this.head = v;
            return this;
        }

        public Builder pool(Pool v) {
            this.pool = v == null ? null : v.json();
            return this;
        }

        public Builder pool(String v) {
            this.pool = v;
            return this;
        }

        public Builder shortcut(Shortcut v) {
            this.shortcut = v == null ? null : v.json();
            return this;
        }

        public Builder shortcut(String v) {
            this.shortcut = v;
            return this;
        }

        public Builder firstSigmaW(Double v) {
            this.firstSigmaW = v;
            return this;
        }

        public Builder layerSigmaW(double[] v) {
            this.layerSigmaW = v;
            return this;
        }

        public Builder layerNorm(Boolean v) {
            this.layerNorm = v;
            return this;
        }

        /** The spec; choices are mapped to their enums without validation (unknown names become null). */
        public ModelSpec build() {
            return new ModelSpec(
                    name,
                    Arch.of(arch),
                    input,
                    widths,
                    outputs,
                    ActivationKind.of(activation),
                    Parameterization.of(parameterization),
                    InitializerKind.of(initializer),
                    sigmaW,
                    sigmaB,
                    bias,
                    outputScale,
                    depth,
                    batchNorm,
                    growth,
                    bottleneck,
                    compression,
                    widen,
                    channels,
                    head,
                    Pool.of(pool),
                    Shortcut.of(shortcut),
                    firstSigmaW,
                    layerSigmaW,
                    layerNorm);
        }

        /** Checks every field; throws a one-line UserException naming the first bad one; else builds the spec. */
        public ModelSpec validate(String source) {
            Specs.Problems p = new Specs.Problems(source);
            p.require(
                    layerSigmaW == null
                            || (widths != null
                                    && layerSigmaW.length == widths.length + 1
                                    && java.util.Arrays.stream(layerSigmaW).allMatch(v -> v > 0 && Double.isFinite(v))),
                    "layerSigmaW",
                    "must list one positive σ_w per dense layer (" + (widths == null ? "?" : widths.length + 1) + ")");
            p.require(
                    arch != null && ARCHS.contains(arch.toLowerCase(Locale.ROOT)),
                    "arch",
                    "must be one of " + ARCHS + " (got " + arch + ")");
            p.require(
                    input != null && input.length >= 1 && Arrays.stream(input).allMatch(v -> v > 0),
                    "input",
                    "must be a non-empty list of positive sizes, e.g. [1,28,28]");
            p.require(
                    widths != null && Arrays.stream(widths).allMatch(v -> v > 0),
                    "widths",
                    "must be positive integers");
            p.require(outputs > 0, "outputs", "must be a positive integer (got " + outputs + ")");
            p.require(
                    List.of("standard", "ntk")
                            .contains(String.valueOf(parameterization).toLowerCase(Locale.ROOT)),
                    "parameterization",
                    "must be standard or ntk (got " + parameterization + ")");
            p.require(
                    List.of("gaussian", "he", "lecun", "he_fan_out", "torch_default")
                            .contains(String.valueOf(initializer).toLowerCase(Locale.ROOT)),
                    "initializer",
                    "must be gaussian, he, lecun, he_fan_out or torch_default (got " + initializer + ")");
            p.require(sigmaW > 0 && Double.isFinite(sigmaW), "sigmaW", "must be a positive number");
            p.require(sigmaB >= 0 && Double.isFinite(sigmaB), "sigmaB", "must be a non-negative number");
            p.require(Double.isFinite(outputScale) && outputScale != 0, "outputScale", "must be a non-zero number");
            p.require(
                    layerNorm == null
                            || !layerNorm
                            || List.of("mlp", "linear", "cnn", "vgg")
                                    .contains(String.valueOf(arch).toLowerCase(Locale.ROOT)),
                    "layerNorm",
                    "applies to the hidden dense layers of mlp and linear, and to the dense head of cnn and vgg (arch "
                            + arch + ")");
            p.check();
            checkActivation(activation);
            arch = arch.toLowerCase(Locale.ROOT);
            validateConv(source);
            return build();
        }

        /** Throws a one-line UserException for a name not in {@link #ACTIVATIONS}. */
        static void checkActivation(String s) {
            if (!ACTIVATIONS.contains(s.trim().toLowerCase(Locale.ROOT))) {
                throw new UserException(
                        "unknown activation '" + s + "'; expected one of " + String.join(", ", ACTIVATIONS));
            }
        }

        private void validateConv(String source) {
            if ("mlp".equals(arch) || "linear".equals(arch)) {
                return;
            }
            Specs.Problems p = new Specs.Problems(source);
            p.require(
                    input.length == 3,
                    "input",
                    "must be [channels, height, width] for arch " + arch + " (got " + Arrays.toString(input) + ")");
            p.require(
                    channels == null
                            || (channels.length > 0 && Arrays.stream(channels).allMatch(v -> v > 0)),
                    "channels",
                    "must be a non-empty list of positive integers");
            p.require(head != null && Arrays.stream(head).allMatch(v -> v > 0), "head", "must be positive integers");
            p.require(
                    firstSigmaW == null || (firstSigmaW > 0 && Double.isFinite(firstSigmaW)),
                    "firstSigmaW",
                    "must be a positive number");
            p.check();
            int d = depth == null ? -1 : depth;
            switch (arch) {
                case "cnn":
                    p.require(channels != null, "channels", "is required for arch cnn, e.g. [16,32]");
                    p.require(
                            POOLS.contains(String.valueOf(pool)),
                            "pool",
                            "must be one of " + POOLS + " (got " + pool + ")");
                    break;
                case "vgg":
                    p.require(
                            VGG_DEPTHS.contains(d),
                            "depth",
                            "must be one of " + VGG_DEPTHS + " for arch vgg (got " + depth + ")");
                    p.require(
                            input[1] >= 32 && input[2] >= 32,
                            "input",
                            "must be at least 32×32 for vgg's five 2×2 max-pools (got " + Arrays.toString(input) + ")");
                    break;
                case "resnet": {
                    int stages = channels != null ? channels.length : (d == 18 || d == 34 ? 4 : 3);
                    boolean imagenetStyle = d == 18 || d == 34;
                    p.require(
                            imagenetStyle ? stages == 4 : d > 2 && (d - 2) % (2 * stages) == 0,
                            "depth",
                            "must be 18 or 34 (4 stages), or 2 + 2·S·n for S = " + stages + " stages, e.g. "
                                    + (2 + 2 * stages) + ", "
                                    + (2 + 4 * stages) + ", " + (2 + 6 * stages) + " (got "
                                    + depth + ")");
                    p.require(
                            SHORTCUTS.contains(String.valueOf(shortcut)),
                            "shortcut",
                            "must be one of " + SHORTCUTS + " (got " + shortcut + ")");
                    break;
                }
                case "densenet":
                    p.require(
                            d > 4 && (d - 4) % (bottleneck ? 6 : 3) == 0,
                            "depth",
                            bottleneck
                                    ? "must be 6·n+4 with bottleneck, e.g. 40, 100, 250 (got " + depth + ")"
                                    : "must be 3·n+4, e.g. 40, 100 (got " + depth + ")");
                    p.require(growth > 0, "growth", "must be a positive integer (got " + growth + ")");
                    p.require(
                            (compression != null ? compression : (bottleneck ? 0.5 : 1.0)) > 0
                                    && (compression != null ? compression : (bottleneck ? 0.5 : 1.0)) <= 1,
                            "compression",
                            "must be in (0, 1] (got " + compression + ")");
                    p.require(
                            channels == null || channels.length == 1, "channels", "must be [stem width] for densenet");
                    p.require(
                            batchNorm == null || batchNorm,
                            "batchNorm",
                            "must be true for densenet (BN-φ-conv layers)");
                    break;
                case "wrn":
                    p.require(
                            d > 4 && (d - 4) % 6 == 0,
                            "depth",
                            "must be 6·b+4 for arch wrn, e.g. 10, 16, 28 (got " + depth + ")");
                    p.require(widen > 0, "widen", "must be a positive integer (got " + widen + ")");
                    break;
                default:
                    break;
            }
            p.check();
        }
    }
}
