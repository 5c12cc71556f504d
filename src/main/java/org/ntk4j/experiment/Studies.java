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

    /** Every study, by seed paper. */
    public static List<Study> all() {
        return ALL;
    }

    /** The study of that command-line name, if any. */
    public static Optional<Study> named(String name) {
        return ALL.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** The printable catalogue: one line per study (seed, name, figures, claim) and a count. */
    public static String list() {
        StringBuilder t =
                new StringBuilder(String.format("%-5s %-24s %-32s %s%n", "seed", "study", "figures", "claim"));
        for (Study s : ALL) {
            t.append(String.format("%-5s %-24s %-32s %s%n", s.paper().seed(), s.name(), s.figures(), s.claim()));
        }
        t.append(String.format(
                "%d studies of the five papers; run one with: ntk4j reproduce NAME [--quick | --scale cpu|paper]%n",
                ALL.size()));
        return t.toString();
    }
}
