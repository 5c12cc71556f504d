package org.ntk4j.experiment;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.ntk4j.experiment.support.Study;

/**
 * Every study of the five seed papers that {@code ntk4j reproduce} has or is planned to have, with the
 * claim it checks and its figure, so the gap is visible from the CLI ({@code reproduce --list}). An
 * entry is "built" iff a {@link Study} of that name is in {@link Studies#all()}; nothing here is a result.
 *
 * <p>Seeds: 000 Lou, Mingard and Hayou, "The Equilibrium Hypothesis: Rethinking implicit regularization
 * in Deep Neural Networks"; 001 Atanasov, Bordelon and Pehlevan, "Neural networks as kernel learners:
 * the silent alignment effect"; 002 "Feature learning as alignment: a structural property of gradient
 * descent in non-linear neural networks" (anonymous); 003 Seleznova, "Analyzing Training Dynamics of Deep
 * Neural Networks: Insights and Limitations of the Neural Tangent Kernel Regime" (PhD thesis, 2024); 004
 * "When Does Feature Learning Happen? Perspective from an Analytically Solvable Model".
 */
public final class StudyCatalog {
    /** One study: its command name, seed (000–004), figures and one-line claim. */
    public record Entry(String name, String seed, String figures, String claim) {
        /** Whether {@code ntk4j reproduce NAME} runs it today. */
        public boolean built() {
            return builtNames().contains(name);
        }
    }

    private StudyCatalog() {}

    /** The catalogue, by seed. */
    public static final List<Entry> ENTRIES = List.of(
            new Entry(
                    "alignment-hierarchy",
                    "000",
                    "Figs 1, 5, 7, 8",
                    "Eq. 5 layer CKA rises sharply within ~2 epochs then plateaus, peaking at an interior layer; lr sweep"),
            new Entry(
                    "equilibrium-depth",
                    "000",
                    "Fig. 2, Tables 1-3",
                    "argmax-CKA layer l* grows as L^(3/5) over depths 10..100 (log l* = 3/5 log L + C)"),
            new Entry(
                    "target-correlation",
                    "000",
                    "Figs 3, 6, Approx. 1",
                    "-corr(Y~, w_t) of centred labels and the CE loss gradient stays ~1 during the first epoch"),
            new Entry(
                    "hessian-energy",
                    "000",
                    "Fig. 4a, 4c, Thm 6",
                    "top |lambda| of the output-weighted Hessian H_w (2, 15, 6) and its energy on middle layers"),
            new Entry(
                    "frozen-features",
                    "000",
                    "Fig. 12, Table 4",
                    "with all but the last layer frozen, layer CKA still evolves; last-layer scale s moves the peak"),
            new Entry(
                    "lfm",
                    "000",
                    "App. E, Figs 10-11",
                    "layer-wise feature maximisation gives flatter CKA profiles and lower accuracy than end-to-end"),
            new Entry(
                    "silent-alignment",
                    "001",
                    "Fig. 3",
                    "two-layer linear nets: NTK aligns to 2/sqrt(D+3) before the loss falls; t_half vs closed form"),
            new Entry(
                    "layerwise-lr",
                    "001",
                    "Fig. D.1b",
                    "final NTK under per-layer learning rates: eigenvalue ratio 1 + eta1/eta2"),
            new Entry(
                    "deep-linear",
                    "001",
                    "Fig. 4b/c",
                    "three-layer linear nets: t_half and first-layer alignment time scale as 1/sigma"),
            new Entry(
                    "relu-silent-alignment",
                    "001",
                    "Fig. 1a-c, D.2",
                    "two- and three-layer (D.2) ReLU MLPs on whitened MNIST/CIFAR 2-class: NTK aligns before the loss"
                            + " falls; final-NTK regression tracks the net"),
            new Entry(
                    "multiclass-anisotropic",
                    "001",
                    "Figs 5, 6, D.4",
                    "silent alignment with multi-class and anisotropic / partially whitened data (linear nets; Fig. 6"
                            + " also with a ReLU net and Adam)"),
            new Entry(
                    "depth-sweep",
                    "001",
                    "Fig. 4a, D.3b",
                    "t_half vs sigma for several depths against the ODE; final alignment L/sqrt(L^2+r-1)"),
            new Entry(
                    "wrn-alignment",
                    "001",
                    "Fig. 1d,e, I.1",
                    "WRN on CIFAR with Adam: kernel alignment ordering (GPU scale; CPU variant)"),
            new Entry(
                    "nfa-chain-monomial",
                    "002",
                    "Fig. 1",
                    "first-layer NFC rho(W^TW, AGOP) ~0.93; random-eigenvector control ~0.53; K eig std/mean ~5.9"),
            new Entry(
                    "centred-nfc",
                    "002",
                    "Figs 2, 4, 5-10",
                    "centred NFC exceeds the uncentred NFC over training (MLPs on six datasets, VGG-11)"),
            new Entry(
                    "slo",
                    "002",
                    "Figs 4, 11, 12, 17",
                    "speed-limited optimisation pushes C/UC NFC to ~1 whatever the init scale"),
            new Entry(
                    "nfc-prediction",
                    "002",
                    "Fig. 3, Eq. 26",
                    "free-probability predicted vs observed C-NFC on the alignment-reversing data"),
            new Entry(
                    "ntk-dispersion",
                    "003",
                    "Thm 3.2, Fig. 1",
                    "E[Theta^2]/E[Theta]^2 of the NTK over initialisations (width 50) against the closed form"),
            new Entry(
                    "dispersion-limits",
                    "003",
                    "§3.1 Figs 1-2",
                    "dispersion at widths 100-500, depths up to M/2, against Thm 3.1 limits; ReLU and tanh zones"),
            new Entry(
                    "ntk-change-phase",
                    "003",
                    "§3.1 Figs 3, 4, 8-11",
                    "relative NTK change over training against chi_1: phase transition at chi_1 = 1"),
            new Entry(
                    "block-structure",
                    "003",
                    "§3.2 Fig. 4, §3.3 Figs 1, 13-20",
                    "label awareness and class-block structure of the NTK during training (MLP, ResNet, VGG, DenseNet)"),
            new Entry(
                    "ntk-collapse",
                    "003",
                    "§3.3 Figs 2-12",
                    "neural collapse NC1-NC4 and the invariant E against the learning rate"),
            new Entry(
                    "solvable-dynamics",
                    "004",
                    "Figs 1, 5",
                    "zeta(t) of two-layer linear nets against eq. 21: kernel vs feature-learning phase"),
            new Entry(
                    "init-scale",
                    "004",
                    "Fig. 2",
                    "ResNet-18 on CIFAR-10 over init scales: parameter norm and test accuracy"),
            new Entry(
                    "phase-diagram",
                    "004",
                    "Figs 3, 4, Table 1",
                    "two-layer ReLU nets in the 20 Table-1 scalings: measured phase against the theoretical labels"));

    /** Names of the studies that exist today. */
    static Set<String> builtNames() {
        return Studies.all().stream().map(Study::name).collect(Collectors.toSet());
    }

    /** The printable list: one line per study (seed, name, status, figures, claim) and a count. */
    public static String list() {
        StringBuilder t = new StringBuilder(
                String.format("%-5s %-24s %-9s %-32s %s%n", "seed", "study", "status", "figures", "claim"));
        int built = 0;
        for (Entry e : ENTRIES) {
            boolean b = e.built();
            built += b ? 1 : 0;
            t.append(String.format(
                    "%-5s %-24s %-9s %-32s %s%n", e.seed(), e.name(), b ? "built" : "not yet", e.figures(), e.claim()));
        }
        t.append(String.format(
                "%d of %d studies built; run one with: ntk4j reproduce NAME [--quick | --scale cpu|paper]%n",
                built, ENTRIES.size()));
        return t.toString();
    }
}
