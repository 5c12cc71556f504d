/**
 * Kernels larger than one machine, as shards: a {@link org.ntk4j.shard.ShardPlan} cuts Θ(X1, X1) (its upper
 * triangle) and Θ(X2, X1) into blocks of whole tiles ({@link org.ntk4j.shard.TileRange}); a {@link
 * org.ntk4j.shard.ShardComputer} computes a block, bit for bit the same block of the whole kernel; a {@link
 * org.ntk4j.shard.ShardStore} keeps the blocks with their checksums; the {@link org.ntk4j.shard.ShardAssembler}
 * checks and assembles them; the {@link org.ntk4j.shard.ShardPlanner} estimates a plan's cost from a tile timed
 * here. Floor 9 of 12: above {@code request} (a plan carries a {@link org.ntk4j.request.KernelRequest}), below
 * {@code job}. The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.shard;
