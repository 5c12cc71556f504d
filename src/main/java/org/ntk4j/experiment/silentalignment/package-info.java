/**
 * Atanasov, Bordelon and Pehlevan, "Neural networks as kernel learners: the silent alignment effect" (ICLR 2022):
 * linear networks against the closed forms (silent-alignment, layerwise-lr, deep-linear, depth-sweep,
 * multiclass-anisotropic; {@code LinearTeacherSetup}) and ReLU networks and wide ResNets on images
 * (relu-silent-alignment, wrn-alignment; {@code ReluSetup}).
 */
package org.ntk4j.experiment.silentalignment;
