package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.ntk4j.model.Network;

/**
 * The dense chain's explicit backward pass is the one {@link TangentFactors} takes for every MLP of {@link
 * NtkCorrectnessTest} (so its structured-against-Jacobian checks, float64 to 1e-10 in every mode, cover it), and
 * not when a layer takes the Jacobian method.
 */
class DenseChainTest {
    @BeforeAll
    static void setUp() {
        NtkCorrectnessTest.setUp();
    }

    @AfterAll
    static void tearDown() {
        NtkCorrectnessTest.tearDown();
    }

    @Test
    void everyMlpOfTheCorrectnessTestTakesTheChain() {
        for (String act : new String[] {"relu", "tanh", "erf", "linear", "quadratic"}) {
            for (boolean bias : new boolean[] {true, false}) {
                try (Network net = NtkCorrectnessTest.net(act, "ntk", bias, 0.5)) {
                    assertNotNull(DenseChain.of(net, Ntk.of(net).plan(5, 4)), act + ", bias " + bias);
                    assertNull(
                            DenseChain.of(
                                    net, Ntk.of(net).method(Method.JACOBIAN).plan(5, 4)),
                            act);
                }
            }
        }
    }
}
