package org.ntk4j.experiment;

import java.util.List;
import java.util.Optional;
import org.ntk4j.experiment.equilibrium.AlignmentHierarchy;
import org.ntk4j.experiment.equilibrium.EquilibriumDepth;
import org.ntk4j.experiment.equilibrium.FrozenFeatures;
import org.ntk4j.experiment.equilibrium.HessianEnergy;
import org.ntk4j.experiment.equilibrium.LayerwiseFeatureMaximisation;
import org.ntk4j.experiment.equilibrium.TargetCorrelation;
import org.ntk4j.experiment.featurealignment.CentredNfcDynamics;
import org.ntk4j.experiment.featurealignment.EarlyCnfc;
import org.ntk4j.experiment.featurealignment.NfaChainMonomial;
import org.ntk4j.experiment.featurealignment.NfcPrediction;
import org.ntk4j.experiment.featurealignment.SpeedLimited;
import org.ntk4j.experiment.ntkregime.CollapseFlow;
import org.ntk4j.experiment.ntkregime.DispersionLimits;
import org.ntk4j.experiment.ntkregime.DispersionProfiles;
import org.ntk4j.experiment.ntkregime.NtkBlockStructure;
import org.ntk4j.experiment.ntkregime.NtkChangePhase;
import org.ntk4j.experiment.ntkregime.NtkCollapse;
import org.ntk4j.experiment.ntkregime.NtkDispersion;
import org.ntk4j.experiment.silentalignment.DeepLinearTimescales;
import org.ntk4j.experiment.silentalignment.DepthSweep;
import org.ntk4j.experiment.silentalignment.LayerwiseLearningRates;
import org.ntk4j.experiment.silentalignment.MulticlassAnisotropic;
import org.ntk4j.experiment.silentalignment.ReluSilentAlignment;
import org.ntk4j.experiment.silentalignment.SilentAlignment;
import org.ntk4j.experiment.silentalignment.TransferError;
import org.ntk4j.experiment.silentalignment.WrnAlignment;
import org.ntk4j.experiment.solvable.InitScale;
import org.ntk4j.experiment.solvable.PhaseDiagram;
import org.ntk4j.experiment.solvable.SgdAlignment;
import org.ntk4j.experiment.solvable.SolvableDynamics;
import org.ntk4j.experiment.support.Paper;
import org.ntk4j.experiment.support.Study;

/**
 * Every study of {@code ntk4j reproduce}, by seed paper, each carrying its catalogue entry (paper, figures, claim):
 * the registry {@code reproduce --list}, {@code --help} and the tests read. The studies live in one package per paper
 * ({@code equilibrium}, {@code silentalignment}, {@code featurealignment}, {@code ntkregime}, {@code solvable}) and
 * share only {@code support}; this class sits above them all.
 */
public final class Studies {
    private Studies() {}

    private static final List<Study> ALL = List.of(
            AlignmentHierarchy.STUDY,
            EquilibriumDepth.STUDY,
            TargetCorrelation.STUDY,
            HessianEnergy.STUDY,
            FrozenFeatures.STUDY,
            LayerwiseFeatureMaximisation.STUDY,
            SilentAlignment.STUDY,
            LayerwiseLearningRates.STUDY,
            DeepLinearTimescales.STUDY,
            ReluSilentAlignment.STUDY,
            MulticlassAnisotropic.STUDY,
            DepthSweep.STUDY,
            WrnAlignment.STUDY,
            TransferError.STUDY,
            NfaChainMonomial.STUDY,
            CentredNfcDynamics.STUDY,
            SpeedLimited.STUDY,
            NfcPrediction.STUDY,
            EarlyCnfc.STUDY,
            NtkDispersion.STUDY,
            DispersionLimits.STUDY,
            DispersionProfiles.STUDY,
            NtkChangePhase.STUDY,
            NtkBlockStructure.STUDY,
            NtkCollapse.STUDY,
            CollapseFlow.STUDY,
            SolvableDynamics.STUDY,
            InitScale.STUDY,
            PhaseDiagram.STUDY,
            SgdAlignment.STUDY);

    /**
     * A headline claim of a seed paper that no study checks, and why: what {@code reproduce --list} shows as "not
     * covered", so the gaps can be counted from the CLI.
     */
    public record Gap(Paper paper, String figures, String claim, String why) {}

    /** The claims of the five papers that no study checks. */
    public static final List<Gap> NOT_COVERED = List.of(
            new Gap(
                    Paper.EQUILIBRIUM_HYPOTHESIS,
                    "Fig. 9",
                    "layer alignment of VGG-19 on CIFAR-100 for three learning rates",
                    "CIFAR-100 is not among the fetchable datasets; GPU scale"),
            new Gap(
                    Paper.SILENT_ALIGNMENT,
                    "Fig. 5c",
                    "deeper tanh networks on multi-class data: ten separated drops in the loss",
                    "multiclass-anisotropic covers the linear and ReLU panels only"),
            new Gap(
                    Paper.FEATURE_LEARNING_AS_ALIGNMENT,
                    "Fig. 2D",
                    "C-NFC above UC-NFC in the Q, K, V layers of a nanoGPT",
                    "no transformer in ntk4j's model zoo; GPU scale"),
            new Gap(
                    Paper.FEATURE_LEARNING_AS_ALIGNMENT,
                    "Fig. 16",
                    "CelebA glasses: Pearson correlation of the NFM and AGOP diagonals 0.91 (0.04 corrupted)",
                    "CelebA is not among the fetchable datasets"),
            new Gap(
                    Paper.FEATURE_LEARNING_AS_ALIGNMENT,
                    "Fig. 17",
                    "SVHN: speed-limited optimisation keeps C/UC NFC near 1",
                    "SVHN is not among the fetchable datasets"),
            new Gap(
                    Paper.SELEZNOVA_THESIS,
                    "§3.1 Fig. 6",
                    "the NTK's condition ratio kappa_1/kappa_2 against depth for erf and ReLU in three phases",
                    "not built"));

    /** Every study, by seed paper. */
    public static List<Study> all() {
        return ALL;
    }

    /** The study of that command-line name, if any. */
    public static Optional<Study> named(String name) {
        return ALL.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** The printable catalogue: one line per study (seed, name, figures, claim), a count, and the claims not covered. */
    public static String list() {
        StringBuilder t =
                new StringBuilder(String.format("%-5s %-24s %-32s %s%n", "seed", "study", "figures", "claim"));
        for (Study s : ALL) {
            t.append(String.format("%-5s %-24s %-32s %s%n", s.paper().seed(), s.name(), s.figures(), s.claim()));
        }
        t.append(String.format(
                "%d studies of the five papers; run one with: ntk4j reproduce NAME [--quick | --scale cpu|paper]%n",
                ALL.size()));
        t.append(String.format("%nNot covered by any study (%d):%n", NOT_COVERED.size()));
        for (Gap g : NOT_COVERED) {
            t.append(String.format(
                    "%-5s %-24s %-32s %s (%s)%n", g.paper().seed(), "-", g.figures(), g.claim(), g.why()));
        }
        return t.toString();
    }
}
