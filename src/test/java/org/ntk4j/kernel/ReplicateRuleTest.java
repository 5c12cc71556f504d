package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The choice between the per-output (default, fastest measured on CPU) and the replicated probe pass. */
class ReplicateRuleTest {
    @Test
    void perOutputUnlessReplicatedIsAskedFor() {
        String old = System.getProperty("ntk4j.backward");
        try {
            System.clearProperty("ntk4j.backward");
            assertFalse(TangentFactors.replicate(8));
            System.setProperty("ntk4j.backward", "replicated");
            assertTrue(TangentFactors.replicate(8));
            assertFalse(TangentFactors.replicate(1)); // one output: nothing to batch
            System.setProperty("ntk4j.backward", "per-output");
            assertFalse(TangentFactors.replicate(8));
            System.setProperty("ntk4j.backward", "sometimes");
            assertThrows(IllegalArgumentException.class, () -> TangentFactors.replicate(8));
        } finally {
            if (old == null) {
                System.clearProperty("ntk4j.backward");
            } else {
                System.setProperty("ntk4j.backward", old);
            }
        }
    }
}
