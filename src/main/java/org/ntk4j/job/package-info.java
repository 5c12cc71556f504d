/**
 * Floor 10 of 12: jobs callable from Java with a typed config, which the CLI only parses options into:
 * {@link org.ntk4j.job.KernelJob} ({@link org.ntk4j.job.KernelJobConfig}: a {@link org.ntk4j.request.KernelRequest}
 * and its output) computes and writes an empirical NTK with its metrics; {@link org.ntk4j.job.ShardJob} computes one
 * shard of a kernel into a shard store, or prints its plan; {@link org.ntk4j.job.RegressJob} runs kernel regression
 * on a kernel file; {@link org.ntk4j.job.TrainJob} ({@link org.ntk4j.job.TrainJobConfig}) trains a network into a
 * run folder with its probes and report. The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.job;
