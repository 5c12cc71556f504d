#!/usr/bin/env python3
"""PyTorch peer of ntk4j's kernel benchmarks (issue #10, item 5): the same cases, the same work.

Cases (as in benchmarks/src/main/java/org/ntk4j/bench): (a) FCN 3072-2048x3-8 ReLU, N=16, full;
(b) MLP 784-512-512-10 ReLU, N=256, trace and full; (c) ResNet-20 (projection shortcuts,
batch-norm in eval mode, 272,474 parameters), N=64, trace; (d) d-mlp3-trace-<N>: MLP 784-512x3-10
ReLU traced on N inputs (any N, e.g. d-mlp3-trace-4000). Standard parameterisation, biases
included, float32 unless --float64. The traced kernel is the sum over outputs (ntk4j's default), the
full kernel is (N1, N2, O, O).

Methods:
  jacrev      per-sample Jacobians by vmap(jacrev(f)) (torch.func on torch 2.x, functorch on 1.13),
              then the contraction sum_p J1[i,o,p] J2[j,q,p] per parameter tensor (the pytorch
              tutorial "Neural Tangent Kernels", method 1);
  factorised  dense nets only: per layer Theta_l = (A_l A_l^T + 1) * (delta_l delta_l^T), the
              forward-backward factorisation ntk4j's structured engine uses, with delta_l formed by
              explicit backprop of the O one-hot cotangents for the whole batch at once; traced, the
              last hidden layer's sum over outputs as one row per sample, as ntk4j does.

Prints one JSON object: environment, then per case/method/device the times in ms
(min and median of --reps warm runs after --warmup runs); the factorised method also reports its
split, factors (forward and the explicit backprop of the deltas) and contraction (the Grams and
their sum), of the median run.

Give it its best setting (threads = the cores you gave ntk4j):
  OPENBLAS_CORETYPE=SkylakeX OMP_WAIT_POLICY=PASSIVE python3 benchmarks/peer/ntk_peer.py --threads 2

Check that both compute the same kernel (load an ntk4j NPZ of mlp 784-512-512-10 and recompute it
with the NPZ's weights and inputs, float64):
  python3 benchmarks/peer/ntk_peer.py --check K.npz
"""
import argparse
import json
import os
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_CORETYPE", "SkylakeX")

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_blas  # noqa: E402

try:  # torch >= 2.0
    from torch.func import functional_call, jacrev, vmap

    API = "torch.func"
except ImportError:  # torch 1.13: functorch
    from functorch import jacrev, vmap
    from torch.nn.utils.stateless import functional_call

    API = "functorch"


# ---------------------------------------------------------------- models


def mlp(widths):
    layers = []
    for k in range(len(widths) - 1):
        layers.append(nn.Linear(widths[k], widths[k + 1]))
        if k < len(widths) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(nn.Flatten(), *layers)


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.short = None
        if stride != 1 or cin != cout:  # option B: 1x1 projection + BN
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (x if self.short is None else self.short(x)))


class ResNet20(nn.Module):
    def __init__(self, outputs=10):
        super().__init__()
        self.c = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
        self.b = nn.BatchNorm2d(16)
        blocks, cin = [], 16
        for cout, stride in ((16, 1), (32, 2), (64, 2)):
            for k in range(3):
                blocks.append(Block(cin, cout, stride if k == 0 else 1))
                cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(64, outputs)

    def forward(self, x):
        y = self.blocks(F.relu(self.b(self.c(x))))
        return self.fc(y.mean(dim=(2, 3)))


CASES = {
    "a-fcn2048-full": (lambda: mlp([3072, 2048, 2048, 2048, 8]), (16, 3072), "full"),
    "b-mlp512-trace": (lambda: mlp([784, 512, 512, 10]), (256, 1, 28, 28), "trace"),
    "b-mlp512-full": (lambda: mlp([784, 512, 512, 10]), (256, 1, 28, 28), "full"),
    "c-resnet20-trace": (lambda: ResNet20(10), (64, 3, 32, 32), "trace"),
}


# ---------------------------------------------------------------- kernels


def ntk_jacrev(net, x1, x2, mode):
    """vmap(jacrev) per-sample Jacobians, contracted parameter tensor by parameter tensor."""
    params = {k: v.detach() for k, v in net.named_parameters()}
    buffers = {k: v.detach() for k, v in net.named_buffers()}

    def f(p, xi):
        return functional_call(net, {**p, **buffers}, (xi.unsqueeze(0),)).squeeze(0)

    j1 = vmap(jacrev(f), (None, 0))(params, x1)
    j2 = j1 if x2 is None else vmap(jacrev(f), (None, 0))(params, x2)
    out = None
    for k in j1:
        a = j1[k].flatten(2)
        b = j2[k].flatten(2)
        t = torch.einsum("iop,jop->ij", a, b) if mode == "trace" else torch.einsum("iop,jqp->ijoq", a, b)
        out = t if out is None else out + t
    return out


def dense_layers(net):
    return [m for m in net if isinstance(m, nn.Linear)]


def ntk_factorised(net, x1, x2, mode, phases=None):
    """Per dense layer (A A^T + 1) * (delta delta^T); delta by explicit backprop of O one-hot cotangents.

    phases, when a dict, receives the seconds of the factors and of the contraction (device synchronised)."""

    def factors(x):
        lin = dense_layers(net)
        a, acts, pres = x.flatten(1), [], []
        for k, layer in enumerate(lin):
            acts.append(a)
            h = layer(a)
            pres.append(h)
            a = F.relu(h) if k < len(lin) - 1 else h
        n, o = x.shape[0], lin[-1].out_features
        delta = torch.eye(o, dtype=x.dtype, device=x.device).expand(n, o, o)  # (n, O, out)
        deltas = [None] * len(lin)
        for k in range(len(lin) - 1, -1, -1):
            deltas[k] = delta
            if k > 0:
                delta = (delta @ lin[k].weight) * (pres[k - 1] > 0).unsqueeze(1).to(x.dtype)
        if mode == "trace" and len(lin) > 1:
            # the last hidden layer traced, one row per sample (ntk4j does the same since 2026-11-27): with
            # delta[i, o, k] = W_L[o, k] relu'(h_i)[k], sum_o delta_io . delta_jo = r_i . r_j, r = relu'(h) * |W_L[:, k]|
            deltas[-2] = ((pres[-2] > 0).to(x.dtype) * lin[-1].weight.norm(dim=0)).unsqueeze(1)
        return acts, deltas

    with torch.no_grad():
        sync(x1.device.type)
        t0 = time.perf_counter()
        a1, d1 = factors(x1)
        a2, d2 = (a1, d1) if x2 is None else factors(x2)
        sync(x1.device.type)
        t1 = time.perf_counter()
        out = None
        for k in range(len(a1)):
            ga = a1[k] @ a2[k].T + 1.0
            if mode == "trace":
                n1, n2 = d1[k].shape[0], d2[k].shape[0]
                gd = d1[k].reshape(n1, -1) @ d2[k].reshape(n2, -1).T
                t = ga * gd
            else:
                gd = torch.einsum("iow,jqw->ijoq", d1[k], d2[k])
                t = ga[:, :, None, None] * gd
            out = t if out is None else out + t
        sync(x1.device.type)
        if phases is not None:
            phases["factors"] = t1 - t0
            phases["contraction"] = time.perf_counter() - t1
    return out


METHODS = {"jacrev": ntk_jacrev, "factorised": ntk_factorised}


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def case_of(name):
    """The (model maker, input shape, mode) of a case: one of CASES, or d-mlp3-trace-<N>."""
    if name.startswith("d-mlp3-trace-"):
        n = int(name.rsplit("-", 1)[1])
        return (lambda: mlp([784, 512, 512, 512, 10]), (n, 1, 28, 28), "trace")
    return CASES[name]


def time_case(case, method, device, dtype, warmup, reps, warmup_seconds=0.0):
    make, shape, mode = case_of(case)
    torch.manual_seed(0)
    net = make().to(device=device, dtype=dtype).eval()
    if method == "factorised" and not isinstance(net, nn.Sequential):
        return None
    x = torch.randn(*shape, device=device, dtype=dtype)
    fn = METHODS[method]
    times = []
    warm_start, warmed = time.perf_counter(), 0
    while len(times) < reps:
        # warm-up: at least `warmup` runs and at least `warmup_seconds` (the rule ntk4j's harness applies to its JIT)
        warming = warmed < warmup or time.perf_counter() - warm_start < warmup_seconds
        phases = {}
        sync(device)
        c0 = time.process_time()
        t0 = time.perf_counter()
        k = fn(net, x, None, mode, phases) if method == "factorised" else fn(net, x, None, mode)
        sync(device)
        if warming:
            warmed += 1
        else:
            phases["cpu"] = time.process_time() - c0
            times.append(((time.perf_counter() - t0) * 1e3, phases))
        del k
    times.sort(key=lambda t: t[0])
    med = times[len(times) // 2]
    cpu = sorted(t[1]["cpu"] for t in times)[len(times) // 2]
    split = {"cpu_ms_median": round(cpu * 1e3, 3)}
    if "factors" in med[1]:
        split.update(factors_ms=round(med[1]["factors"] * 1e3, 3), contraction_ms=round(med[1]["contraction"] * 1e3, 3))
    times = [t[0] for t in times]
    return {
        "case": case,
        "method": method,
        "device": device,
        "dtype": str(dtype).replace("torch.", ""),
        "ms_min": round(times[0], 3),
        "ms_median": round(times[len(times) // 2], 3),
        "reps": reps,
        "warmup_runs": warmed,
        **split,
    }


# ---------------------------------------------------------------- check against ntk4j


def check(path):
    """Recompute an ntk4j NPZ of a ReLU MLP (weights dense{l}.weight/bias, inputs x1) in float64."""
    import numpy as np

    z = np.load(path)
    lin = []
    k = 1
    while f"dense{k}.weight" in z:
        w = torch.from_numpy(z[f"dense{k}.weight"].astype(np.float64))
        layer = nn.Linear(w.shape[1], w.shape[0]).double()
        with torch.no_grad():
            layer.weight.copy_(w)
            layer.bias.copy_(torch.from_numpy(z[f"dense{k}.bias"].astype(np.float64)))
        lin.append(layer)
        k += 1
    mods = []
    for i, layer in enumerate(lin):
        mods.append(layer)
        if i < len(lin) - 1:
            mods.append(nn.ReLU())
    net = nn.Sequential(nn.Flatten(), *mods).eval()
    x = torch.from_numpy(z["x1"].astype(np.float64))
    ref = torch.from_numpy(z["ntk"].astype(np.float64))
    n, o = x.shape[0], lin[-1].out_features
    mode = "trace" if ref.dim() == 2 and ref.shape == (n, n) else "full"
    res = {"npz": path, "mode": mode, "shape": list(ref.shape)}
    for name, fn in METHODS.items():
        kk = fn(net, x, None, mode)
        if mode == "full" and ref.shape != kk.shape:  # ntk4j may store (N1*O, N2*O) or (N1, N2, O, O)
            kk = kk.permute(0, 2, 1, 3).reshape(ref.shape) if ref.dim() == 2 else kk.reshape(ref.shape)
        rel = ((kk - ref).abs().max() / ref.abs().max()).item()
        res[name + "_max_rel_diff"] = rel
    print(json.dumps(res, indent=1))
    worst = max(v for kk, v in res.items() if kk.endswith("_diff"))
    return 0 if worst < 1e-4 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--methods", default="factorised,jacrev")
    ap.add_argument("--devices", default="cpu,cuda", help="cuda is skipped (reported) when absent")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup-seconds", type=float, default=0.0, help="warm up for at least this long as well")
    ap.add_argument("--float64", action="store_true")
    ap.add_argument("--check", metavar="NPZ", help="compare with an ntk4j kernel NPZ of a ReLU MLP and exit")
    args = ap.parse_args()
    if "cpu" in args.devices.split(","):
        peer_blas.check()  # a peer on the reference BLAS would make every CPU ratio meaningless
    peer_blas.set_threads(args.threads)
    if args.check:
        sys.exit(check(args.check))
    dtype = torch.float64 if args.float64 else torch.float32
    out = {
        "torch": torch.__version__,
        "api": API,
        "threads": torch.get_num_threads(),
        "cuda": torch.cuda.is_available(),
        "env": {k: os.environ.get(k) for k in ("OPENBLAS_CORETYPE", "OMP_WAIT_POLICY")},
        "results": [],
        "skipped": [],
    }
    if os.path.exists("/proc/loadavg"):
        out["loadavg_start"] = open("/proc/loadavg").read().split()[:3]
    for device in args.devices.split(","):
        if device == "cuda" and not torch.cuda.is_available():
            out["skipped"].append("cuda: torch.cuda.is_available() is False")
            continue
        for case in args.cases.split(","):
            for method in args.methods.split(","):
                r = time_case(case, method, device, dtype, args.warmup, args.reps, args.warmup_seconds)
                if r is None:
                    out["skipped"].append(f"{case}/{method}: factorised variant covers dense nets only")
                else:
                    out["results"].append(r)
                    print(json.dumps(r), file=sys.stderr, flush=True)
    if os.path.exists("/proc/loadavg"):
        out["loadavg_end"] = open("/proc/loadavg").read().split()[:3]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
