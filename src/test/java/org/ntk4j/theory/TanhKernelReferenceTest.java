package org.ntk4j.theory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Issue #15: the infinite-width tanh NNGP/NTK, q* and χ₁ against independent high-precision values.
 *
 * <p>Every reference value below was computed once by {@code scripts/tanh_kernel_reference.py} (mpmath 1.3
 * tanh-sinh quadrature at 20 significant digits on the conditional form of the bivariate Gaussian, whole real
 * line, split at the features of tanh; a method independent of ntk4j's sinh-trapezoid / G10K21 code) and pasted
 * here with 17 digits. Tolerance 1e-8 relative (the quadrature's own error is ≲ 1e-12).
 */
class TanhKernelReferenceTest {
    static final double TOL = 1e-8;
    static final double R3 = Math.sqrt(3);
    static final double RHO = 0.999999;
    /** Inputs in 3-D with x·x/n0 = 1; the last pair has y·y/n0 = 4 and correlation 1/√3. */
    static final double[][][] PAIRS = {
        {{R3, 0, 0}, {0, R3, 0}}, // orthogonal
        {{R3, 0, 0}, {R3 * RHO, R3 * Math.sqrt(1 - RHO * RHO), 0}}, // ρ = 0.999999
        {{R3, 0, 0}, {R3, 0, 0}}, // ρ = 1
        {{R3, 0, 0}, {2, 2 * Math.sqrt(2), 0}}, // unequal norms
    };

    static void assertRel(double expected, double actual, String what) {
        assertEquals(expected, actual, TOL * Math.abs(expected) + 1e-15, what);
    }

    static double[] kernel(double sw, double sb, int depth, double[] x, double[] y) {
        return MlpKernel.builder()
                .activation(Activation.TANH)
                .depth(depth)
                .sigmaW(sw)
                .sigmaB(sb)
                .build()
                .pair(x, y);
    }

    @Test
    void cliExamplesOfTheIssue() {
        // `theory ntk --activation tanh --depth 2 --sigma-w 2 --sigma-b 0.5 --inputs x.csv` with the row 3,0,0:
        // the old 64-point Gauss–Hermite rule gave 9.7133, the exact value is 10.7179
        double[] k = kernel(2, 0.5, 2, new double[] {3, 0, 0}, new double[] {3, 0, 0});
        assertRel(3.3667864705625699, k[0], "nngp");
        assertRel(10.717940976499289, k[1], "ntk");
        // `theory ntk --activation tanh --sigma-w 3 --sigma-b 0 --angles 3 --depth 2`, angle 0 of x = (1, 0):
        // the old rule gave 15.633, the exact value is 15.691
        double[] a2 = kernel(3, 0, 2, new double[] {1, 0}, new double[] {1, 0});
        assertRel(5.8774126974803037, a2[0], "nngp angle 0 depth 2");
        assertRel(15.690566457954249, a2[1], "ntk angle 0 depth 2");
        // the same at the default depth 3
        double[] a = kernel(3, 0, 3, new double[] {1, 0}, new double[] {1, 0});
        assertRel(6.220017632558942, a[0], "nngp angle 0");
        assertRel(36.393346860325209, a[1], "ntk angle 0");
    }

    @Test
    void fixedPointLengthAndChi1() {
        // {σ_w, σ_b, q*, χ₁}; the old rule gave χ₁ = 1.8178 instead of 1.8599 at σ_w = 3, σ_b = 0
        double[][] ref = {
            {3, 0, 6.305391478778854, 1.8598551908089248},
            {2, 0.5, 2.4797104610985911, 1.2722295538024697},
            {1.414, 0.1, 0.63952371307439687, 1.0923798843317797},
            {3, 1, 7.5087660421569916, 1.7109201647180655},
        };
        for (double[] r : ref) {
            SignalPropagation sp = new SignalPropagation(Activation.TANH, r[0] * r[0], r[1] * r[1]);
            double q = sp.fixedPointLength(1);
            assertRel(r[2], q, "q* at σ_w=" + r[0] + " σ_b=" + r[1]);
            assertRel(r[3], sp.chi1(q), "χ₁ at σ_w=" + r[0] + " σ_b=" + r[1]);
        }
    }

    static final double NaN = Double.NaN;

    /** {σ_w, σ_b, then nngp, ntk for each of PAIRS}: depth 2 (NaN: not computed by the script run). */
    static final double[][] GRID = {
        {
            3,
            1,
            1.531039255595792,
            2.0636090924404924,
            7.8153830809728938,
            22.716782848631973,
            7.8153964922918653,
            22.716914361565645,
            4.430886095525324,
            8.3420842507849179
        },
        {
            2,
            0.5,
            0.37644048371583718,
            0.50298630253495236,
            2.8279531148591621,
            7.0582955857127703,
            2.8279570963677271,
            7.0583163446137789,
            NaN,
            NaN
        },
        {
            1.414,
            0.1,
            0.014591182807538646,
            0.019182386264005215,
            1.0512937811954275,
            2.4526207514856791,
            1.0512951755509086,
            2.4526255400859614,
            0.63229606559743648,
            1.3110720323567631
        },
        {
            1,
            0,
            0.0,
            0.0,
            0.39429402599508883,
            0.85869616383746076,
            0.39429449039784117,
            0.85869739284610942,
            0.26290742992756615,
            0.54288713366010586
        },
    };

    @Test
    void depth2KernelGrid() {
        for (double[] g : GRID) {
            for (int p = 0; p < PAIRS.length; p++) {
                double[] k = kernel(g[0], g[1], 2, PAIRS[p][0], PAIRS[p][1]);
                String what = "σ_w=" + g[0] + " σ_b=" + g[1] + " pair " + p;
                if (!Double.isNaN(g[2 + 2 * p])) {
                    assertRel(g[2 + 2 * p], k[0], "nngp " + what);
                    assertRel(g[3 + 2 * p], k[1], "ntk " + what);
                }
            }
        }
    }

    @Test
    void continuousAtParallelInputs() {
        // ρ → 1: the conditional form degenerates to a 1-D integral at ρ = 1 exactly; the kernel must be
        // continuous there (Θ is Lipschitz in ρ away from the kink-free tanh: |ΔΘ| ≲ |dΘ/dρ|·1e-6)
        for (double sw : new double[] {1, 2, 3.5}) {
            double[] one = kernel(sw, 0.3, 4, PAIRS[2][0], PAIRS[2][1]);
            double[] near = kernel(sw, 0.3, 4, PAIRS[1][0], PAIRS[1][1]);
            assertEquals(one[1], near[1], 1e-3 * one[1], "σ_w=" + sw);
        }
    }
}
