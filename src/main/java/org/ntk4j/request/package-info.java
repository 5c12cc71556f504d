/**
 * Floor 8 of 12: one kernel request, whoever computes it: {@link org.ntk4j.request.KernelRequest} (model, weights,
 * seed, {@link org.ntk4j.request.Samples}, the engine's options) and how it resolves into data and a network. The
 * kernel job, the shards of a kernel and the Spark driver all build one; a shard plan carries one as JSON. Its
 * settings are named by {@link org.ntk4j.request.KernelOption}. The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.request;
