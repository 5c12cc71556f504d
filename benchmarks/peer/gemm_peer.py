"""The GEMMs and SGD updates of GemmBench.java in the Python torch: wall and thread CPU time per call (us), THREADS
threads (default 1; OpenBLAS's too, peer_blas.set_threads); the update as torch.optim.SGD's single-tensor path makes it
(buf.mul_(momentum).add_(grad); param.add_(buf, alpha=-lr)).

Usage: OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 benchmarks/peer/gemm_peer.py [REPS] [ROUNDS] [THREADS]
"""
import sys
import time

import torch

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
import peer_blas  # noqa: E402

peer_blas.check()  # the reference BLAS would make the comparison meaningless

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
peer_blas.set_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
x = torch.rand(128, 784)
w1 = torch.rand(512, 784) * .06 - .03
w2 = torch.rand(512, 512) * .08 - .04
h = torch.rand(128, 512)
g = (torch.rand(128, 512) - .5) * 2e-3
b = torch.zeros(512)
shapes = [(512, 784), (512,), (512, 512), (512,), (10, 512), (10,)]
pw = [torch.rand(s) * .06 - .03 for s in shapes]
pg = [torch.rand(s) * 2e-3 - 1e-3 for s in shapes]
pv = [torch.zeros(s) for s in shapes]


def sgd():
    for p, d, v in zip(pw, pg, pv):
        v.mul_(0.9).add_(d)
        p.add_(v, alpha=-1e-6)


cases = {
    "x@W1^T (matmul)": lambda: x.matmul(w1.t()),
    "x@W1^T+b (linear)": lambda: torch.nn.functional.linear(x, w1, b),
    "h@W2^T (matmul)": lambda: h.matmul(w2.t()),
    "g^T@x (dW1)": lambda: g.t().matmul(x),
    "g^T@h (dW2)": lambda: g.t().matmul(h),
    "g@W2 (dh)": lambda: g.matmul(w2),
    "SGD update, 3 calls": sgd,
}
mean = {k: 0.0 for k in cases}
wall = {k: 0.0 for k in cases}
with torch.no_grad():
    for r in range(-1, rounds):
        for k, f in cases.items():
            t0 = time.thread_time()
            w0 = time.perf_counter()
            for _ in range(reps):
                f()
            if r >= 0:
                mean[k] += (time.thread_time() - t0) / reps * 1e6 / rounds
                wall[k] += (time.perf_counter() - w0) / reps * 1e6 / rounds
print(f"{'':20s} {'wall':>10s} {'thread CPU':>10s}")
for k, v in mean.items():
    print(f"{k:20s} {wall[k]:7.1f} us {v:7.1f} us")
