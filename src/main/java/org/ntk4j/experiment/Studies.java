package org.ntk4j.experiment;

import java.util.List;
import org.ntk4j.experiment.equilibrium.AlignmentHierarchy;
import org.ntk4j.experiment.equilibrium.EquilibriumDepth;
import org.ntk4j.experiment.equilibrium.FrozenFeatures;
import org.ntk4j.experiment.equilibrium.HessianEnergy;
import org.ntk4j.experiment.equilibrium.LayerwiseFeatureMaximisation;
import org.ntk4j.experiment.equilibrium.TargetCorrelation;
import org.ntk4j.experiment.featurealignment.CentredNfcDynamics;
import org.ntk4j.experiment.featurealignment.NfaChainMonomial;
import org.ntk4j.experiment.featurealignment.NfcPrediction;
import org.ntk4j.experiment.featurealignment.SpeedLimited;
import org.ntk4j.experiment.ntkregime.DispersionLimits;
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
import org.ntk4j.experiment.silentalignment.WrnAlignment;
import org.ntk4j.experiment.solvable.InitScale;
import org.ntk4j.experiment.solvable.PhaseDiagram;
import org.ntk4j.experiment.solvable.SolvableDynamics;
import org.ntk4j.experiment.support.Study;

/** Every study of {@code ntk4j reproduce}, by paper: the registry the CLI and the catalogue read. */
public final class Studies {
    private Studies() {}

    /** Every study, in the order they are listed. */
    public static List<Study> all() {
        return List.of(
                SilentAlignment.STUDY,
                LayerwiseLearningRates.STUDY,
                DeepLinearTimescales.STUDY,
                DepthSweep.STUDY,
                MulticlassAnisotropic.STUDY,
                WrnAlignment.STUDY,
                ReluSilentAlignment.STUDY,
                NtkDispersion.STUDY,
                DispersionLimits.STUDY,
                NtkChangePhase.STUDY,
                NtkBlockStructure.STUDY,
                NtkCollapse.STUDY,
                NfaChainMonomial.STUDY,
                CentredNfcDynamics.STUDY,
                SpeedLimited.STUDY,
                NfcPrediction.STUDY,
                TargetCorrelation.STUDY,
                AlignmentHierarchy.STUDY,
                EquilibriumDepth.STUDY,
                FrozenFeatures.STUDY,
                LayerwiseFeatureMaximisation.STUDY,
                HessianEnergy.STUDY,
                SolvableDynamics.STUDY,
                PhaseDiagram.STUDY,
                InitScale.STUDY);
    }
}
