/**
 * Floor 5 of 12: what is measured on kernels, features and networks, each with its formula and source in its Javadoc.
 * The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 *
 * <p>Kernel metrics are reductions on the engine over the traced kernel T = Σ_o Θ_oo held where the kernel is
 * ({@link org.ntk4j.metrics.TracedKernel}, in row slabs, float64 sums): kernel–target alignment and its centred form
 * ({@link org.ntk4j.metrics.Alignment}), label awareness ({@link org.ntk4j.metrics.LabelAwareness}), block structure
 * ({@link org.ntk4j.metrics.BlockStructure}), the effective rank from traces and the leading eigenpairs by a block
 * Krylov start and randomized subspace iteration ({@link org.ntk4j.metrics.KernelSpectrum},
 * {@link org.ntk4j.metrics.LeadingSpectrum}), kernel
 * change ({@link org.ntk4j.metrics.KernelChange}); {@link org.ntk4j.metrics.KernelMetrics} puts them under the keys the
 * kernel job and the training probes share. Feature and network metrics (layer CKA, neural collapse, the neural
 * feature ansatz, output Hessians) complete the package.
 */
package org.ntk4j.metrics;
