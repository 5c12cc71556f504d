/**
 * Jobs callable from Java with a typed config, which the CLI only parses options into:
 * {@link org.ntk4j.job.KernelJob} ({@link org.ntk4j.job.KernelJobConfig}) computes and writes an
 * empirical NTK with its metrics; {@link org.ntk4j.job.TrainJob} ({@link org.ntk4j.job.TrainJobConfig})
 * trains a network into a run folder with its probes ({@link org.ntk4j.job.ProbeKind}) and report;
 * {@link org.ntk4j.job.TrainRun} is the run folder's trainer and lifecycle (start, resume) and
 * {@link org.ntk4j.job.Quickstart} the first run.
 */
package org.ntk4j.job;
