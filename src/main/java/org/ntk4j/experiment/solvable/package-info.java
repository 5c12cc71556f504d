/**
 * Xu and Ziyin, "When Does Feature Learning Happen? Perspective from an Analytically Solvable Model"
 * (arXiv:2401.07085): ζ(t) of two-layer linear nets against eq. 21 (solvable-dynamics), the Table 1 phase diagram of
 * two-layer ReLU nets (phase-diagram; {@code SolvableSetup}) and ResNet-18 over init scales (init-scale).
 */
package org.ntk4j.experiment.solvable;
