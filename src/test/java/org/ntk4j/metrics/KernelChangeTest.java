package org.ntk4j.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;

/** Kernel change, distance and velocity on hand-computed 2×2 examples and their invariances. */
class KernelChangeTest {
    static final double[][] K = {{2, 1}, {1, 3}};

    static double[][] scaled(double[][] k, double s) {
        return new double[][] {{s * k[0][0], s * k[0][1]}, {s * k[1][0], s * k[1][1]}};
    }

    @Test
    void relativeChangeIsTheFrobeniusRatio() {
        assertEquals(1.0, KernelChange.relativeChange(scaled(K, 2), K), 1e-15);
        assertEquals(0.0, KernelChange.relativeChange(K, K), 0);
        // K' − K = [[1, 0], [0, 0]]; ‖K‖_F = √15
        assertEquals(1 / Math.sqrt(15), KernelChange.relativeChange(new double[][] {{3, 1}, {1, 3}}, K), 1e-15);
    }

    @Test
    void distanceIgnoresScaleAndMatchesTheCosine() {
        assertEquals(0.0, KernelChange.distance(K, scaled(K, 7)), 1e-15);
        double[][] i2 = {{1, 0}, {0, 1}};
        // ⟨K, I⟩ = 5, ‖K‖ = √15, ‖I‖ = √2
        assertEquals(1 - 5 / Math.sqrt(30), KernelChange.distance(K, i2), 1e-15);
        assertEquals(KernelChange.distance(i2, K), KernelChange.distance(K, i2), 0);
        assertEquals(1.0, KernelChange.distance(i2, new double[][] {{0, 1}, {1, 0}}), 1e-15, "orthogonal kernels");
    }

    @Test
    void velocityIsDistancePerStep() {
        double[][] i2 = {{1, 0}, {0, 1}};
        assertEquals(KernelChange.distance(K, i2) / 4, KernelChange.velocity(K, i2, 4), 1e-15);
        assertThrows(UserException.class, () -> KernelChange.velocity(K, i2, 0));
        assertThrows(UserException.class, () -> KernelChange.distance(K, new double[][] {{1}}));
    }
}
