/**
 * Seleznova, "Analyzing Training Dynamics of Deep Neural Networks: Insights and Limitations of the Neural Tangent
 * Kernel Regime" (PhD thesis, 2024): the finite-width NTK dispersion against Thm 3.1/3.2 (ntk-dispersion,
 * dispersion-limits; {@code NtkSampling}), the NTK's change over training against χ₁ (ntk-change-phase), and the
 * NTK's class-block structure and neural collapse (block-structure, ntk-collapse; {@code CollapseSetup}).
 */
package org.ntk4j.experiment.ntkregime;
