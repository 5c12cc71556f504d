/**
 * Theory beside the measurements: closed-form and infinite-width predictions in plain Java (double
 * precision, EJML for linear algebra), each class one result of the seed papers, its Javadoc citing the seed
 * equation and the engineering note (shared/notes) whose corrected version it implements.
 *
 * <ul>
 *   <li>{@link org.ntk4j.theory.MlpKernel}: infinite-width NNGP/NTK of MLPs (neural-tangents
 *       {@code stax.Dense(W_std, b_std)} convention, NTK or standard parameterisation) with
 *       {@link org.ntk4j.theory.Activation} (ReLU and erf closed forms, tanh and any φ by error-checked quadrature, {@link org.ntk4j.theory.GaussianExpectation}).</li>
 *   <li>{@link org.ntk4j.theory.KernelRegression}: linearised gradient flow at time t and t → ∞.</li>
 *   <li>{@link org.ntk4j.theory.SignalPropagation}: q/c maps, χ₁, phases, depth scales;
 *       {@link org.ntk4j.theory.EquilibriumHypothesis}: seed 000's forward/backward information and l*(L).</li>
 *   <li>{@link org.ntk4j.theory.FiniteWidthNtkMoments}: seed 003 Thm 3.1/3.2 (proof-form second moment).</li>
 *   <li>{@link org.ntk4j.theory.BlockNtk}: seed 003 §3.3 block-structured NTK.</li>
 *   <li>{@link org.ntk4j.theory.LinearNetworks}: seed 001 silent-alignment closed forms (corrected).</li>
 *   <li>{@link org.ntk4j.theory.SolvableModel}, {@link org.ntk4j.theory.PhaseClassifier}: seed 004.</li>
 *   <li>{@link org.ntk4j.theory.NfcPredictor}: seed 002 free-probability NFC prediction (corrected eq. 26).</li>
 *   <li>{@link org.ntk4j.theory.MonteCarloNtk}: exact empirical NTK of random MLPs in plain Java, the
 *       Monte Carlo oracle for the infinite- and finite-width results (and later for the DJL engine).</li>
 * </ul>
 * Depth L always counts weight layers (L − 1 hidden layers), as in the papers.
 */
package org.ntk4j.theory;
