/**
 * Lou, Mingard and Hayou, "The Equilibrium Hypothesis: Rethinking implicit regularization in Deep Neural Networks":
 * the layer CKA of Eq. 5 over training and depth (alignment-hierarchy, equilibrium-depth), the target correlation of
 * Approx. 1 (target-correlation), the output-weighted Hessian (hessian-energy), frozen features (frozen-features) and
 * layer-wise feature maximisation (lfm), on the bias-free ReLU FFNN of {@code EquilibriumSetup}.
 */
package org.ntk4j.experiment.equilibrium;
