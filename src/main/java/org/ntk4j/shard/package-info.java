/**
 * Kernels larger than one machine, as shards: a {@link org.ntk4j.shard.ShardPlan} cuts Θ(X1, X1) (its upper
 * triangle) and Θ(X2, X1) into blocks of whole tiles ({@link org.ntk4j.shard.TileRange}); a {@link
 * org.ntk4j.shard.ShardComputer} computes a block, bit for bit the same block of the whole kernel; a {@link
 * org.ntk4j.shard.ShardStore} keeps the blocks with their checksums; the {@link org.ntk4j.shard.ShardAssembler}
 * checks and assembles them; the {@link org.ntk4j.shard.ShardPlanner} estimates a plan's cost from a tile timed
 * here. Above {@code job} (it uses the kernel job's loading), below {@code cli}.
 */
package org.ntk4j.shard;
