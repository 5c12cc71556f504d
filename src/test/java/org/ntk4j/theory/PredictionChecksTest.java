package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;

/**
 * The checks on predictions live with the predictions: a table with a value that left the doubles is refused in one
 * line naming the settings given, a finite one passes unchanged; the phase of exponents too large for finite t1, t2 is
 * refused likewise.
 */
class PredictionChecksTest {
    @Test
    void aTableThatLeftTheDoublesIsRefusedNamingTheSettings() {
        Table fine = Table.of("t", new String[] {"a", "b"}, List.of(new double[] {1, 2}));
        assertSame(fine, fine.requireFinite("--x 1"));
        Table bad = Table.of("t", new String[] {"a", "b"}, List.of(new double[] {1, 2}, new double[] {3, Double.NaN}));
        UserException e = assertThrows(UserException.class, () -> bad.requireFinite("--x 1e300"));
        assertEquals("theory t: the result is not finite (NaN) with --x 1e300; choose smaller values", e.getMessage());
        // a real overflow: the ReLU signal recursion at σ_w = 1e200 leaves the doubles within a few layers
        UserException signal = assertThrows(
                UserException.class, () -> Predictions.signal(Activation.byName("relu"), 1e200, 0, 10, 1, 0.5)
                        .requireFinite("--sigma-w 1e200"));
        assertTrue(signal.getMessage().startsWith("theory "), signal.getMessage());
    }

    @Test
    void exponentsWithoutFiniteT1T2AreRefused() {
        PhaseClassifier.Exponents ok = PhaseClassifier.Exponents.of(1, -0.5, 0, 0, 0, false);
        assertTrue(Predictions.phase(ok, "--cd 1").startsWith("t1="));
        PhaseClassifier.Exponents huge = PhaseClassifier.Exponents.of(1e308, 1e308, -1e308, 1e308, -1e308, false);
        UserException e = assertThrows(UserException.class, () -> Predictions.phase(huge, "--cd 1e308"));
        assertEquals("exponents this large give no finite t1, t2 (--cd 1e308)", e.getMessage());
    }
}
