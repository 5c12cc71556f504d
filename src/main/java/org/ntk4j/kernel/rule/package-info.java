/**
 * One NTK rule per layer type. A {@link org.ntk4j.kernel.rule.TangentRule} says how a layer's
 * Θ_l = J_l(X1) J_l(X2)ᵀ is computed from its tangent factors (its input and the output gradients
 * one batched probe pass leaves on a zero leaf), what that costs in FLOPs and memory, and whether it
 * applies; {@link org.ntk4j.kernel.rule.TangentRules} maps layer classes to rules, and layers without
 * one take the generic Jacobian path ({@link org.ntk4j.kernel.rule.JacobianRule}).
 *
 * <p>Adding a layer type takes: the layer (a {@code model.Module} implementing
 * {@code model.TangentLayer} whose forward calls {@code ctx.probe().tap(this, input, output)} in
 * probe mode), one rule class here, one {@code TangentRules.register} line (or a call from user
 * code), and a test against the Jacobian path and finite differences ({@code LayerNorm} /
 * {@code LayerNormRule} / {@code LayerNormNtkTest} are the worked example).
 */
package org.ntk4j.kernel.rule;
