/**
 * Training probes: measurements of a network on a schedule during training (the NTK of a probe set,
 * neural collapse, the neural feature ansatz), each supplying its own part of the run report
 * ({@link org.ntk4j.probe.Probe#report()}). {@link org.ntk4j.probe.ProbeListener} runs them inside
 * ntk4j's {@link org.ntk4j.train.Trainer}, {@link org.ntk4j.probe.DjlProbeListener} inside DJL's own
 * {@code Trainer}/{@code EasyTrain}.
 *
 * <p>Package layering (checked by {@code PackageCyclesTest}, no cycles), bottom to top: util and
 * UserException; spec; data; model; kernel; report (run folder, NPZ, plots); train; metrics; probe;
 * job; experiment; cli. theory stands beside.
 */
package org.ntk4j.probe;
