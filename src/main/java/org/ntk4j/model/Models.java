package org.ntk4j.model;

import ai.djl.ndarray.types.Shape;
import org.ntk4j.spec.ActivationKind;
import org.ntk4j.spec.Arch;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.Parameterization;
import org.ntk4j.spec.Pool;
import org.ntk4j.spec.Shortcut;

/**
 * Builds the module tree of a {@link ModelSpec}. Conventions shared by the conv builders: 3×3 convs
 * use padding 1; φ is the spec's activation; parameterisation, initialiser, σ_w and σ_b come from the
 * spec for every conv and dense layer (the first conv uses {@code firstSigmaW}); convs followed by
 * batch-norm have no bias (the BN β plays its role), other convs and the dense readout have a bias
 * unless {@code "bias": false}.
 */
public final class Models {
    private Models() {}

    /**
     * The trainable parameter count of {@code spec}'s network, from the spec alone: its module tree's shapes are
     * planned ({@link Module#plan}) and nothing is created, so even a 20M-parameter VGG counts in microseconds.
     */
    public static long parameterCount(ModelSpec spec) {
        Module root = root(spec);
        ParameterCount c = new ParameterCount();
        Shape out = root.plan(
                new Shape(java.util.Arrays.stream(spec.input()).asLongStream().toArray()), c);
        if (out.dimension() != 1 || out.get(0) != spec.outputs()) {
            throw new IllegalStateException("network output shape " + out + " != outputs " + spec.outputs());
        }
        return c.trainable();
    }

    static Module root(ModelSpec spec) {
        switch (spec.arch()) {
            case MLP:
            case LINEAR:
                return mlp(spec);
            case CNN:
                return cnn(spec);
            case VGG:
                return vgg(spec);
            case RESNET:
                return resnet(spec);
            case DENSENET:
                return densenet(spec);
            case WRN:
                return wrn(spec);
            default:
                throw new org.ntk4j.UserException(
                        "unknown arch '" + spec.arch() + "'; expected one of " + ModelSpec.ARCHS);
        }
    }

    /**
     * MLP: flatten, then for each hidden width Dense [→ LayerNorm] → φ, then a Dense readout. Layers are named
     * dense1..denseL (and ln1.. with {@code "layerNorm": true}). "linear" is a deep linear network (φ = identity).
     */
    static Module mlp(ModelSpec s) {
        Parameterization par = s.parameterization();
        WeightInit init = WeightInit.valueOf(s.initializer().name());
        ActivationKind act = s.arch() == Arch.LINEAR ? ActivationKind.LINEAR : s.activation();
        Sequential seq = new Sequential("mlp");
        seq.add(new Flatten("flatten"));
        int l = 1;
        for (int w : s.widths()) {
            seq.add(new Dense("dense" + l, w, s.biasOn(), par, init, s.sigmaW(l), s.sigmaB()));
            if (s.layerNormOn()) {
                seq.add(new LayerNorm("ln" + l));
            }
            if (act != ActivationKind.LINEAR) {
                seq.add(new Activation("act" + l, act));
            }
            l++;
        }
        seq.add(new Dense("dense" + l, s.outputs(), s.biasOn(), par, init, s.sigmaW(l), s.sigmaB()));
        return seq;
    }

    /** Shared layer factory for one spec. */
    private static final class Layers {
        final ModelSpec s;
        final Parameterization par;
        final WeightInit init;
        final ActivationKind act;
        final boolean bn;
        boolean first = true;

        Layers(ModelSpec s) {
            this.s = s;
            this.par = s.parameterization();
            this.init = WeightInit.valueOf(s.initializer().name());
            this.act = s.activation();
            this.bn = s.batchNormOn();
        }

        Conv2d conv(String name, int out, int k, int stride, boolean bias) {
            double sw = first ? s.firstSigmaWValue() : s.sigmaW();
            first = false;
            return new Conv2d(name, out, k, stride, k / 2, bias, par, init, sw, s.sigmaB());
        }

        /** conv k×k, then BN when batch-norm is on (the conv then has no bias). */
        void convBn(Sequential seq, String name, int out, int k, int stride) {
            seq.add(conv(name, out, k, stride, !bn && s.biasOn()));
            if (bn) {
                seq.add(new BatchNorm2d(name + "_bn"));
            }
        }

        Activation phi(String name) {
            return new Activation(name, act);
        }

        /** [BN →] φ, the pre-activation of DenseNet / WideResNet layers. */
        void bnPhi(Sequential seq, String name) {
            if (bn) {
                seq.add(new BatchNorm2d(name + "_bn"));
            }
            seq.add(phi(name + "_act"));
        }

        /** Flatten → [Dense(h) → φ for h in head] → Dense(outputs) (the conv stack output is flattened). */
        void head(Sequential seq, int[] hidden) {
            seq.add(new Flatten("flatten"));
            int l = 1;
            for (int h : hidden) {
                seq.add(new Dense("fc" + l, h, s.biasOn(), par, init, s.sigmaW(), s.sigmaB()));
                if (s.layerNormOn()) {
                    seq.add(new LayerNorm("fc" + l + "_ln"));
                }
                seq.add(phi("fc" + l + "_act"));
                l++;
            }
            seq.add(new Dense("fc" + l, s.outputs(), s.biasOn(), par, init, s.sigmaW(), s.sigmaB()));
        }
    }

    /**
     * Plain CNN: for each width c in {@code channels}: Conv3×3(c) [→ BN] → φ [→ 2×2 max/avg pool],
     * then flatten → head → Dense(outputs). Layers conv1.., fc1...
     */
    static Module cnn(ModelSpec s) {
        Layers f = new Layers(s);
        Sequential seq = new Sequential("cnn");
        int l = 1;
        for (int c : s.channels()) {
            f.convBn(seq, "conv" + l, c, 3, 1);
            seq.add(f.phi("conv" + l + "_act"));
            if (s.pool() == Pool.MAX) {
                seq.add(new MaxPool2d("pool" + l, 2, 2));
            } else if (s.pool() == Pool.AVG) {
                seq.add(new AvgPool2d("pool" + l, 2, 2));
            }
            l++;
        }
        f.head(seq, s.head());
        return seq;
    }

    /** VGG configurations (Simonyan &amp; Zisserman 2015; torchvision cfgs A, B, D, E); 0 = 2×2 max-pool. */
    static int[] vggConfig(int depth) {
        switch (depth) {
            case 11:
                return new int[] {64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0};
            case 13:
                return new int[] {64, 64, 0, 128, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0};
            case 16:
                return new int[] {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0};
            case 19:
                return new int[] {
                    64, 64, 0, 128, 128, 0, 256, 256, 256, 256, 0, 512, 512, 512, 512, 0, 512, 512, 512, 512, 0
                };
            default:
                throw new org.ntk4j.UserException(
                        "vgg depth must be one of " + ModelSpec.VGG_DEPTHS + " (got " + depth + ")");
        }
    }

    /**
     * VGG-d for CIFAR-sized inputs (kuangliu/pytorch-cifar's VGG): the torchvision conv stack,
     * Conv3×3 (with bias, as torchvision, unless "bias": false) [→ BN] → φ, 2×2 max-pool after each
     * stage; then flatten (512 features for 32×32 inputs) → [Dense(h) → φ for h in head] →
     * Dense(outputs). With head [] the head is the single 512→outputs layer of the CIFAR VGGs (no
     * 4096-4096 ImageNet classifier, no dropout). Conv layers conv1..conv8 (VGG-11), fc1...
     */
    static Module vgg(ModelSpec s) {
        Layers f = new Layers(s);
        Sequential seq = new Sequential("vgg" + s.depth());
        int l = 1;
        int p = 1;
        for (int c : vggConfig(s.depth())) {
            if (c == 0) {
                seq.add(new MaxPool2d("pool" + p++, 2, 2));
            } else {
                seq.add(f.conv("conv" + l, c, 3, 1, s.biasOn()));
                if (f.bn) {
                    seq.add(new BatchNorm2d("conv" + l + "_bn"));
                }
                seq.add(f.phi("conv" + l + "_act"));
                l++;
            }
        }
        f.head(seq, s.head());
        return seq;
    }

    /**
     * ResNet with basic blocks (He et al. 2016). Stem Conv3×3(c_1) [→ BN] → φ; stages s = 1..S of
     * n_s blocks with c_s channels, the first block of stages s ≥ 2 striding by 2; block
     * y = φ(main(x) + shortcut(x)), main = Conv3×3(stride) [→ BN] → φ → Conv3×3 [→ BN]; shortcut
     * identity when shape is kept, else projection (Conv1×1(stride) [→ BN], option B) or
     * {@link PadShortcut} (option A); then global average pool → Dense(outputs).
     * <ul>
     * <li>depth 6n+2 (3 stages, default channels 16/32/64): the CIFAR ResNets of He et al. §4.2
     * (ResNet-20: n = 3, ResNet-56: n = 9); generally depth = 2 + 2·S·n for S = |channels| stages.</li>
     * <li>depth 18 / 34: the CIFAR variant of the 4-stage ImageNet ResNet (kuangliu/pytorch-cifar):
     * 3×3 stride-1 stem without max-pool, channels 64/128/256/512, blocks 2-2-2-2 / 3-4-6-3.</li>
     * </ul>
     * Modules: stem, stage{s}.block{b}.{conv1,conv2,shortcut}, fc.
     */
    static Module resnet(ModelSpec s) {
        Layers f = new Layers(s);
        int d = s.depth();
        int[] ch;
        int[] blocks;
        if (d == 18 || d == 34) {
            ch = s.channels() != null ? s.channels() : new int[] {64, 128, 256, 512};
            blocks = d == 18 ? new int[] {2, 2, 2, 2} : new int[] {3, 4, 6, 3};
        } else {
            ch = s.channels() != null ? s.channels() : new int[] {16, 32, 64};
            blocks = new int[ch.length];
            java.util.Arrays.fill(blocks, (d - 2) / (2 * ch.length));
        }
        Sequential seq = new Sequential("resnet" + d);
        f.convBn(seq, "stem", ch[0], 3, 1);
        seq.add(f.phi("stem_act"));
        int in = ch[0];
        for (int st = 0; st < ch.length; st++) {
            for (int b = 0; b < blocks[st]; b++) {
                int stride = st > 0 && b == 0 ? 2 : 1;
                String n = "stage" + (st + 1) + ".block" + (b + 1);
                Sequential main = new Sequential(n + ".main");
                f.convBn(main, n + ".conv1", ch[st], 3, stride);
                main.add(f.phi(n + ".act1"));
                f.convBn(main, n + ".conv2", ch[st], 3, 1);
                Module sc = null;
                if (stride != 1 || in != ch[st]) {
                    if (s.shortcut() == Shortcut.PAD) {
                        sc = new PadShortcut(n + ".shortcut", ch[st], stride);
                    } else {
                        Sequential proj = new Sequential(n + ".shortcut");
                        f.convBn(proj, n + ".shortcut", ch[st], 1, stride);
                        sc = proj;
                    }
                }
                seq.add(new Residual(n, main, sc, f.phi(n + ".act2")));
                in = ch[st];
            }
        }
        seq.add(new GlobalAvgPool("pool"));
        seq.add(new Dense("fc", s.outputs(), s.biasOn(), f.par, f.init, s.sigmaW(), s.sigmaB()));
        return seq;
    }

    /**
     * DenseNet for CIFAR (Huang et al. 2017). Stem Conv3×3 with 16 channels (2k for DenseNet-BC);
     * three dense blocks of n layers, each layer x ↦ concat(x, H(x)) ({@link DenseConcat}) with
     * H = BN → φ → Conv3×3(k), or with bottleneck BN → φ → Conv1×1(4k) → BN → φ → Conv3×3(k);
     * transitions between blocks BN → φ → Conv1×1(⌊θ·c⌋) → AvgPool2×2; then BN → φ → global
     * average pool → Dense(outputs). n = (depth−4)/3, or (depth−4)/6 with bottleneck; θ = compression.
     * A one-element {@code channels} overrides the stem width (for tiny test nets).
     * Convs have no bias. Modules: stem, block{b}.layer{l}.{bn1,conv1,...}, trans{b}.{bn,conv,pool}, fc.
     */
    static Module densenet(ModelSpec s) {
        Layers f = new Layers(s);
        int k = s.growth();
        int n = (s.depth() - 4) / (s.bottleneck() ? 6 : 3);
        Sequential seq = new Sequential("densenet" + s.depth());
        int c = s.channels() != null ? s.channels()[0] : s.bottleneck() ? 2 * k : 16;
        seq.add(f.conv("stem", c, 3, 1, false));
        for (int b = 1; b <= 3; b++) {
            for (int l = 1; l <= n; l++) {
                String name = "block" + b + ".layer" + l;
                Sequential h = new Sequential(name + ".h");
                if (s.bottleneck()) {
                    h.add(new BatchNorm2d(name + ".bn1"));
                    h.add(f.phi(name + ".act1"));
                    h.add(f.conv(name + ".conv1", 4 * k, 1, 1, false));
                    h.add(new BatchNorm2d(name + ".bn2"));
                    h.add(f.phi(name + ".act2"));
                    h.add(f.conv(name + ".conv2", k, 3, 1, false));
                } else {
                    h.add(new BatchNorm2d(name + ".bn1"));
                    h.add(f.phi(name + ".act1"));
                    h.add(f.conv(name + ".conv1", k, 3, 1, false));
                }
                seq.add(new DenseConcat(name, h));
                c += k;
            }
            if (b < 3) {
                String name = "trans" + b;
                int out = (int) Math.floor(s.compressionValue() * c);
                seq.add(new BatchNorm2d(name + ".bn"));
                seq.add(f.phi(name + ".act"));
                seq.add(f.conv(name + ".conv", out, 1, 1, false));
                seq.add(new AvgPool2d(name + ".pool", 2, 2));
                c = out;
            }
        }
        seq.add(new BatchNorm2d("final_bn"));
        seq.add(f.phi("final_act"));
        seq.add(new GlobalAvgPool("pool"));
        seq.add(new Dense("fc", s.outputs(), s.biasOn(), f.par, f.init, s.sigmaW(), s.sigmaB()));
        return seq;
    }

    /**
     * Wide ResNet WRN-d-k as in neural-tangents' README / Novak et al. 2020 (after Zagoruyko &amp;
     * Komodakis 2016), the network of Atanasov, Bordelon &amp; Pehlevan, Silent Alignment: stem Conv3×3(16) (σ_w =
     * firstSigmaW); three groups of b = (d−4)/6 pre-activation blocks with 16k, 32k, 64k channels (strides 1, 2, 2);
     * block y = main(x) + shortcut(x), main = [BN →] φ → Conv3×3(stride) → [BN →] φ → Conv3×3, shortcut a
     * Conv3×3(stride) in the first block of each group (neural-tangents' channel_mismatch) and the
     * identity otherwise; then [BN → φ →] global average pool (neural-tangents' AvgPool 8×8 on
     * 32×32 inputs) → Dense(outputs). No batch-norm unless asked; convs have a bias only if
     * "bias" is true and batch-norm is off.
     */
    static Module wrn(ModelSpec s) {
        Layers f = new Layers(s);
        int b = (s.depth() - 4) / 6;
        boolean bias = !f.bn && s.biasOn();
        Sequential seq = new Sequential("wrn" + s.depth() + "_" + s.widen());
        seq.add(f.conv("stem", 16, 3, 1, bias));
        int[] ch = {16 * s.widen(), 32 * s.widen(), 64 * s.widen()};
        for (int g = 0; g < 3; g++) {
            for (int i = 0; i < b; i++) {
                String n = "group" + (g + 1) + ".block" + (i + 1);
                int stride = g > 0 && i == 0 ? 2 : 1;
                Sequential main = new Sequential(n + ".main");
                f.bnPhi(main, n + ".pre1");
                main.add(f.conv(n + ".conv1", ch[g], 3, stride, bias));
                f.bnPhi(main, n + ".pre2");
                main.add(f.conv(n + ".conv2", ch[g], 3, 1, bias));
                Module sc = i == 0 ? f.conv(n + ".shortcut", ch[g], 3, stride, bias) : null;
                seq.add(new Residual(n, main, sc, null));
            }
        }
        if (f.bn) {
            f.bnPhi(seq, "final");
        }
        seq.add(new GlobalAvgPool("pool"));
        seq.add(new Dense("fc", s.outputs(), s.biasOn(), f.par, f.init, s.sigmaW(), s.sigmaB()));
        return seq;
    }
}
