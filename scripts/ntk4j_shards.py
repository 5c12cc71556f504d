#!/usr/bin/env python3
"""Read an ntk4j shard store lazily, in numpy alone: any block of the kernel maps only the shards it touches.

A store is what `ntk4j kernel ... --rows A:B --cols C:D --out DIR` fills and `ntk4j kernel assemble DIR --format store`
checks (it writes DIR/manifest.json: the plan and every shard with its SHA-256). Each shard is a directory of .npy
files, one per array (ntk, ntk.<layer>, ntk_test, ...), of shape (rows, cols[, O[, O]]); Θ(X1, X1) stores only its
shards on and above the diagonal, the others are their transposes (Θ[j, i, p, o] = Θ[i, j, o, p]).

    from ntk4j_shards import ShardedKernel
    K = ShardedKernel("DIR", "ntk")        # or "ntk.dense1", "ntk_test", ...
    K.shape, K.dtype, K.ndim, len(K)       # (N, N) / (N, N, O) / (N, N, O, O)
    block = K[1000:1200, 5000:5100]        # numpy array; reads only the shards it needs (np.load mmap_mode='r')
    K[::10, ::10], K[-5:], K[[3, 1, 4]]    # numpy indexing on the two sample axes: slices with steps (also
    K[7, 9], K[7], K[..., 0, 0]            # negative), integers, integer lists/arrays, boolean masks, Ellipsis;
    np.asarray(K)                          # further indices apply to the output axes; the whole kernel in memory
    K[[1, 5], [2, 3]]                      # index arrays on both sample axes select their outer product (np.ix_)

Usage as a script: ntk4j_shards.py DIR [ARRAY] prints the shape and the trace of the kernel's first 10×10 block.
"""
import json
import os
import sys

import numpy as np


class ShardedKernel:
    """One array (e.g. "ntk") of an ntk4j shard store, indexed like a numpy array (see the module docstring)."""

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

    @property
    def ndim(self):
        return len(self.shape)

    def __len__(self):
        return self.shape[0]

    def __array__(self, dtype=None, copy=None):
        a = self[:, :]
        return a if dtype is None else a.astype(dtype, copy=False)

    @staticmethod
    def _axis(ix, n, axis):
        """The positions an index selects on a sample axis of length n, and whether the axis is kept."""
        if isinstance(ix, slice):
            return np.arange(n)[ix], True
        if isinstance(ix, (int, np.integer)):
            i = int(ix) + (n if ix < 0 else 0)
            if not 0 <= i < n:
                raise IndexError("index %d is out of bounds for axis %d with size %d" % (ix, axis, n))
            return np.array([i]), False
        a = np.asarray(ix)
        if a.dtype == bool:
            if a.shape != (n,):
                raise IndexError("boolean index of shape %s for axis %d with size %d" % (a.shape, axis, n))
            return np.nonzero(a)[0], True
        if a.ndim != 1 or not np.issubdtype(a.dtype, np.integer):
            raise IndexError("axis %d takes a slice, an integer, or a 1-d integer or boolean array" % axis)
        a = np.where(a < 0, a + n, a)
        if a.size and (a.min() < 0 or a.max() >= n):
            raise IndexError("index out of bounds for axis %d with size %d" % (axis, n))
        return a, True

    @staticmethod
    def _select(pos):
        """A slice when the positions are consecutive and increasing (fast on a memory map), else the array."""
        if len(pos) and pos[-1] - pos[0] == len(pos) - 1 and np.all(np.diff(pos) == 1):
            return slice(int(pos[0]), int(pos[-1]) + 1)
        return pos

    def __getitem__(self, index):
        if not isinstance(index, tuple):
            index = (index,)
        if any(i is Ellipsis for i in index):
            at = next(k for k, i in enumerate(index) if i is Ellipsis)
            fill = self.ndim - (len(index) - 1)
            index = index[:at] + (slice(None),) * max(fill, 0) + index[at + 1:]
        if len(index) > self.ndim:
            raise IndexError("too many indices: the kernel has %d axes" % self.ndim)
        index = index + (slice(None),) * max(0, 2 - len(index))
        rows, keep_rows = self._axis(index[0], self.shape[0], 0)
        cols, keep_cols = self._axis(index[1], self.shape[1], 1)
        out = np.empty((len(rows), len(cols)) + self.shape[2:], self.dtype)
        for (r0, r1), (c0, c1), path in self.shards:
            # the shard as stored, and (symmetric, off the diagonal) its mirror image below the diagonal
            places = [(r0, r1, c0, c1, False)]
            if self.symmetric and r0 != c0:
                places.append((c0, c1, r0, r1, True))
            for a0, a1, b0, b1, mirrored in places:
                ri = np.nonzero((rows >= a0) & (rows < a1))[0]
                ci = np.nonzero((cols >= b0) & (cols < b1))[0]
                if not len(ri) or not len(ci):
                    continue
                s = np.load(path, mmap_mode="r")
                rs = self._select(rows[ri] - a0)
                cs = self._select(cols[ci] - b0)
                if mirrored:
                    blk = np.swapaxes(s[cs][:, rs], 0, 1)
                    if blk.ndim == 4:
                        blk = np.swapaxes(blk, 2, 3)
                else:
                    blk = s[rs][:, cs]
                out[np.ix_(ri, ci)] = blk
        if len(index) > 2:
            out = out[(slice(None), slice(None)) + tuple(index[2:])]
        if not keep_cols:
            out = out[:, 0]
        if not keep_rows:
            out = out[0]
        return out

if __name__ == "__main__":
    k = ShardedKernel(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "ntk")
    b = k[0:10, 0:10]
    print(k.shape, k.dtype, float(np.trace(b.reshape(b.shape[0], b.shape[1], -1).sum(axis=2))))
