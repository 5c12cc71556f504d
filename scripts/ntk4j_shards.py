#!/usr/bin/env python3
"""Read an ntk4j shard store lazily, in numpy alone: any block of the kernel maps only the shards it touches.

A store is what `ntk4j kernel ... --rows A:B --cols C:D --out DIR` fills and `ntk4j kernel assemble DIR --format store`
checks (it writes DIR/manifest.json: the plan and every shard with its SHA-256). Each shard is a directory of .npy
files, one per array (ntk, ntk.<layer>, ntk_test, ...), of shape (rows, cols[, O[, O]]); Θ(X1, X1) stores only its
shards on and above the diagonal, the others are their transposes (Θ[j, i, p, o] = Θ[i, j, o, p]).

    from ntk4j_shards import ShardedKernel
    K = ShardedKernel("DIR", "ntk")        # or "ntk.dense1", "ntk_test", ...
    K.shape, K.dtype                       # (N, N) / (N, N, O) / (N, N, O, O)
    block = K[1000:1200, 5000:5100]        # numpy array; reads only the shards it needs (np.load mmap_mode='r')

Usage as a script: ntk4j_shards.py DIR [ARRAY] prints the shape and the trace of the kernel's first 10×10 block.
"""
import json
import os
import sys

import numpy as np


class ShardedKernel:
    """One array (e.g. "ntk") of an ntk4j shard store, indexed like a numpy array with two slices."""

    def __init__(self, store, array="ntk"):
        with open(os.path.join(store, "manifest.json")) as f:
            manifest = json.load(f)
        self.plan = manifest["plan"]
        kernel = "ntk_test" if array.startswith("ntk_test") else "ntk"
        self.symmetric = kernel == "ntk"
        self.shards = [(s["rows"], s["cols"], os.path.join(store, s["dir"], array + ".npy"))
                       for s in manifest["shards"] if s["kernel"] == kernel]
        first = np.load(self.shards[0][2], mmap_mode="r")
        rows = self.plan["n"] if self.symmetric else self.plan["test"]
        self.shape = (rows, self.plan["n"]) + first.shape[2:]
        self.dtype = first.dtype

    def __getitem__(self, index):
        i0, i1, _ = index[0].indices(self.shape[0])
        j0, j1, _ = index[1].indices(self.shape[1])
        out = np.empty((max(0, i1 - i0), max(0, j1 - j0)) + self.shape[2:], self.dtype)
        for (r0, r1), (c0, c1), path in self.shards:
            # the shard as stored, and (symmetric, off the diagonal) its mirror image below the diagonal
            places = [(r0, r1, c0, c1, False)]
            if self.symmetric and r0 != c0:
                places.append((c0, c1, r0, r1, True))
            for a0, a1, b0, b1, mirrored in places:
                lo_i, hi_i, lo_j, hi_j = max(i0, a0), min(i1, a1), max(j0, b0), min(j1, b1)
                if lo_i >= hi_i or lo_j >= hi_j:
                    continue
                s = np.load(path, mmap_mode="r")
                if mirrored:
                    blk = np.swapaxes(s[lo_j - b0:hi_j - b0, lo_i - a0:hi_i - a0], 0, 1)
                    if blk.ndim == 4:
                        blk = np.swapaxes(blk, 2, 3)
                else:
                    blk = s[lo_i - a0:hi_i - a0, lo_j - b0:hi_j - b0]
                out[lo_i - i0:hi_i - i0, lo_j - j0:hi_j - j0] = blk
        return out


if __name__ == "__main__":
    k = ShardedKernel(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "ntk")
    b = k[0:10, 0:10]
    print(k.shape, k.dtype, float(np.trace(b.reshape(b.shape[0], b.shape[1], -1).sum(axis=2))))
