/**
 * Theory beside the measurements: closed-form and infinite-width predictions in plain Java (double
 * precision, EJML for linear algebra), each class one result of the papers below, its Javadoc citing the paper's
 * equation and, where the printed equation is wrong, the corrected form it implements.
 *
 * <p>Short forms used in this package's Javadoc:
 * <ul>
 *   <li>"Lou, Mingard &amp; Hayou, Equilibrium Hypothesis": Y. Lou, C. Mingard, S. Hayou, "The Equilibrium
 *       Hypothesis: Rethinking implicit regularization in Deep Neural Networks".</li>
 *   <li>"Atanasov, Bordelon &amp; Pehlevan, Silent Alignment": A. Atanasov, B. Bordelon, C. Pehlevan, "Neural
 *       networks as kernel learners: the silent alignment effect", ICLR 2022.</li>
 *   <li>"Feature Learning as Alignment (anon.)": "Feature learning as alignment: a structural property of
 *       gradient descent in non-linear neural networks" (anonymous, under review).</li>
 *   <li>"Seleznova, NTK thesis": M. Seleznova, "Analyzing Training Dynamics of Deep Neural Networks: Insights
 *       and Limitations of the Neural Tangent Kernel Regime", PhD thesis, LMU München 2024; its chapters are
 *       "Seleznova &amp; Kutyniok, Can We Trust NTK Theory?" ("Analyzing Finite Neural Networks: Can We Trust
 *       NTK Theory?", MSML 2021), "Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit" ("... Effects
 *       of Depth and Initialization", ICML 2022) and "Seleznova et al., Neural (Tangent Kernel) Collapse"
 *       (Seleznova, Weitzner, Giryes, Kutyniok, Chou, NeurIPS 2023).</li>
 *   <li>"Xu &amp; Ziyin, When Does Feature Learning Happen?": Y. Xu, L. Ziyin, "When Does Feature Learning
 *       Happen? Perspective from an Analytically Solvable Model", arXiv:2401.07085 v1.</li>
 *   <li>Neural Tangents: Novak et al., "Neural Tangents: Fast and Easy Infinite Neural Networks in Python",
 *       ICLR 2020.</li>
 * </ul>
 *
 * <ul>
 *   <li>{@link org.ntk4j.theory.MlpKernel}: infinite-width NNGP/NTK of MLPs (neural-tangents
 *       {@code stax.Dense(W_std, b_std)} convention, NTK or standard parameterisation) with
 *       {@link org.ntk4j.theory.Activation} (ReLU and erf closed forms, tanh and any φ by error-checked quadrature, {@link org.ntk4j.theory.GaussianExpectation}).</li>
 *   <li>{@link org.ntk4j.theory.KernelRegression}: linearised gradient flow at time t and t → ∞.</li>
 *   <li>{@link org.ntk4j.theory.SignalPropagation}: q/c maps, χ₁, phases, depth scales;
 *       {@link org.ntk4j.theory.EquilibriumHypothesis}: Lou, Mingard &amp; Hayou's forward/backward
 *       information and l*(L).</li>
 *   <li>{@link org.ntk4j.theory.FiniteWidthNtkMoments}: Seleznova &amp; Kutyniok, NTK Beyond the Infinite-Width Limit,
 *       Thm 3.1/3.2 (proof-form second moment).</li>
 *   <li>{@link org.ntk4j.theory.BlockNtk}: Seleznova et al., Neural (Tangent Kernel) Collapse,
 *       block-structured NTK.</li>
 *   <li>{@link org.ntk4j.theory.LinearNetworks}: Atanasov, Bordelon &amp; Pehlevan's
 *       silent-alignment closed forms (corrected).</li>
 *   <li>{@link org.ntk4j.theory.SolvableModel}, {@link org.ntk4j.theory.PhaseClassifier}: Xu &amp; Ziyin,
 *       When Does Feature Learning Happen?</li>
 *   <li>{@link org.ntk4j.theory.NfcPredictor}: Feature Learning as Alignment (anon.),
 *       free-probability NFC prediction (corrected eq. 26).</li>
 *   <li>{@link org.ntk4j.theory.MonteCarloNtk}: exact empirical NTK of random MLPs in plain Java, the
 *       Monte Carlo oracle for the infinite- and finite-width results (and later for the DJL engine).</li>
 * </ul>
 * Depth L always counts weight layers (L − 1 hidden layers), as in the papers. {@link org.ntk4j.theory.Predictions}
 * turns them into the tables of {@code ntk4j theory}.
 *
 * <p>Floor 3 of 12: it uses {@code spec} (the parameterisation and activation kinds) and nothing of the engine.
 * The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.theory;
