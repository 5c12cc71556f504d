/**
 * Floor 5 of 12 (beside metrics): approximate neural tangent kernels that never form the N×N matrix, each with its
 * error measured against the exact engine. The floors are written once in the test source
 * {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 *
 * <p>{@link org.ntk4j.approx.ApproxSpec} names an approximation ({@code pntk}, {@code sketch:K}, {@code nystrom:M});
 * every low-rank one ends as a {@link org.ntk4j.approx.LowRankKernel}: features F (N×r) with K ≈ F Fᵀ, test rows G
 * (M×r) with K(test, train) ≈ G Fᵀ, on which kernel regression and the leading spectrum work in r dimensions.
 */
package org.ntk4j.approx;
