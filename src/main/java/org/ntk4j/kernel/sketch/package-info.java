/**
 * Seeded random projections of per-sample tangent features (the per-sample, per-output parameter gradients of one
 * layer, as an R × C matrix per sample): a dense {@link org.ntk4j.kernel.sketch.GaussianProjection} and the
 * structured {@link org.ntk4j.kernel.sketch.KhatriRaoProjection}, whose columns are Kronecker products and which acts
 * on the dense layer's rank-one gradients without forming them. Every projection P (R·C × k) is drawn from its seed
 * block by block ({@link org.ntk4j.kernel.sketch.Streams}), so any tile can regenerate it, and is scaled so that
 * E[P Pᵀ] = I: the sketched features S = J P of the per-sample gradients J are unbiased, E[S Sᵀ] = J Jᵀ. The engine
 * ({@code kernel.TangentSketch}) drives it; it imports only the factor SPI.
 */
package org.ntk4j.kernel.sketch;
