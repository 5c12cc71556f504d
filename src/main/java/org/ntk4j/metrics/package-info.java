/**
 * Floor 5 of 12: what is measured on kernels, features and Hessians: kernel-target alignment, spectra, label
 * awareness and block structure ({@link org.ntk4j.metrics.KernelMetrics}), neural collapse, the neural feature
 * ansatz, layer CKA, kernel change, the output Hessian. Each metric's Javadoc gives its formula and source. The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.metrics;
