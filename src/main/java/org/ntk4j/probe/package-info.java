/**
 * Training probes: measurements of a network on a schedule during training (the NTK of a probe set,
 * neural collapse, the neural feature ansatz), each supplying its own part of the run report
 * ({@link org.ntk4j.probe.Probe#report()}). {@link org.ntk4j.probe.ProbeListener} runs them inside
 * ntk4j's {@link org.ntk4j.train.TrainLoop}, {@link org.ntk4j.probe.DjlProbeListener} inside DJL's own
 * {@code Trainer}/{@code EasyTrain}.
 *
 * <p>Floor 7 of 12. The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.probe;
