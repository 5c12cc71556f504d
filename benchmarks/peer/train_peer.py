#!/usr/bin/env python3
"""PyTorch peer of `ntk4j train`: the same network, initial weights, data, batch order and hyper-parameters in a
plain torch training loop, reporting images per second per epoch (CPU or CUDA).

The data, the batch order of every epoch and the initial weights come from ntk4j itself, so both sides do the same
work (benchmarks/peer/TrainBench.java export CASE DIR EPOCHS writes DIR/data.npz and DIR/init.npz):

  mlp            MLP 784-512-512-10 (ReLU) on the 60,000 MNIST training images, lr 0.05, momentum 0.9
  resnet20       ResNet-20 (projection shortcuts, batch-norm) on 2,000 CIFAR-10 images (200 per class),
                 lr 0.1, momentum 0.9, weight decay 5e-4
  resnet20-full  the same on all 50,000 CIFAR-10 training images

Batch 128, SGD with momentum (torch.optim.SGD, PyTorch's convention as ntk4j's), cross-entropy, float32; the
epoch time is the training loop alone (batch selection, forward, loss, backward, update, loss and accuracy
book-keeping), as ntk4j's metrics.jsonl "seconds"; the test set is evaluated after each epoch, outside it.

  OPENBLAS_CORETYPE=SkylakeX OMP_WAIT_POLICY=PASSIVE python3 benchmarks/peer/train_peer.py \
      --case mlp --data target/train-bench/mlp --epochs 2 --threads 2 [--device cuda] [--profile 10]

--schedule cosine gives the learning rate of ntk4j's --schedule cosine, step by step; --torch-init SEED trains from
torch's own default initialisation and a numpy batch order of SEED instead of ntk4j's (the spread over seeds of the
plain loop, e.g. for the 10-epoch accuracy: --data target/train-bench/mlp10 --epochs 10 --schedule cosine).
--profile N also times N more steps phase by phase (the phases of TrainBench.java profile), then runs them again
with one torch.autograd.profiler session per phase and prints the operations per step each phase calls from Python
(top level; torch.optim's wrappers looked through) and their time.
Prints one JSON object per line: per epoch, then a summary.
"""
import argparse
import json
import math
import os
import resource
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_CORETYPE", "SkylakeX")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_blas  # noqa: E402
from ntk_peer import ResNet20  # noqa: E402  (the same ResNet-20 as the kernel peer: ntk4j's resnet20 spec)

CASES = {
    "mlp": dict(lr=0.05, momentum=0.9, weight_decay=0.0),
    "resnet20": dict(lr=0.1, momentum=0.9, weight_decay=5e-4),
    "resnet20-full": dict(lr=0.1, momentum=0.9, weight_decay=5e-4),
}
PHASES = ["batch", "forward", "loss", "backward", "metrics", "optimizer", "zero_grad"]


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10))


def load_init(net, init):
    """ntk4j's parameters in its order (p000, ...) into the torch state, in the same module order."""
    keys = [k for k in net.state_dict() if not k.endswith("num_batches_tracked")]
    arrays = [init[f"p{i:03d}"] for i in range(len(init.files))]
    if len(keys) != len(arrays):
        sys.exit(f"init.npz holds {len(arrays)} arrays, the torch model {len(keys)} tensors")
    state = net.state_dict()
    for k, a in zip(keys, arrays):
        if tuple(state[k].shape) != a.shape:
            sys.exit(f"init.npz array for {k} has shape {a.shape}, torch expects {tuple(state[k].shape)}")
        state[k].copy_(torch.from_numpy(a))


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    ap.add_argument("--data", required=True, help="folder written by TrainBench.java export")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--profile", type=int, default=0, metavar="STEPS")
    ap.add_argument("--save", metavar="FILE", help="write the trained parameters to FILE (.npz, p000, p001, ... in "
                    "the order of init.npz) to compare with ntk4j's weights.npz")
    ap.add_argument("--schedule", default="constant", choices=["constant", "cosine"],
                    help="learning rate per step as ntk4j's --schedule: cosine = lr·(1 + cos(π·t/epochs))/2 at "
                         "t = epoch + step/steps_per_epoch")
    ap.add_argument("--torch-init", type=int, default=None, metavar="SEED",
                    help="torch's own default initialisation from torch.manual_seed(SEED) instead of init.npz, and a "
                         "batch order from numpy's SEED (the spread of the plain loop over seeds)")
    a = ap.parse_args()
    if a.device == "cpu":
        peer_blas.check()  # a peer on the reference BLAS would make every CPU ratio meaningless
    t_start = time.perf_counter()
    peer_blas.set_threads(a.threads)
    device = torch.device(a.device)
    z = np.load(os.path.join(a.data, "data.npz"))
    order = z["order"]
    if order.shape[0] < a.epochs and a.torch_init is None:
        sys.exit(f"{a.data}/data.npz has the batch order of {order.shape[0]} epochs; export at least {a.epochs}")
    x = torch.from_numpy(z["x_train"]).to(device)
    y = torch.from_numpy(z["y_train"].astype(np.int64)).to(device)
    xt = torch.from_numpy(z["x_test"]).to(device)
    yt = torch.from_numpy(z["y_test"].astype(np.int64)).to(device)
    if a.torch_init is not None:
        torch.manual_seed(a.torch_init)
        rng = np.random.default_rng(a.torch_init)
        order = np.stack([rng.permutation(x.shape[0]) for _ in range(a.epochs)])
    net = mlp() if a.case == "mlp" else ResNet20()
    if a.torch_init is None:
        load_init(net, np.load(os.path.join(a.data, "init.npz")))
    net.to(device)
    h = CASES[a.case]
    opt = torch.optim.SGD(net.parameters(), lr=h["lr"], momentum=h["momentum"], weight_decay=h["weight_decay"])
    n = x.shape[0]
    steps = (n + a.batch - 1) // a.batch

    def step(idx, marks=None):
        def mark(p):
            if marks is not None:
                marks(p)
        mark("batch")
        xb = x[idx]
        yb = y[idx]
        mark("forward")
        out = net(xb)
        mark("loss")
        loss = F.cross_entropy(out, yb)
        mark("backward")
        loss.backward()
        mark("metrics")
        lv = loss.item()
        correct = (out.argmax(1) == yb).sum().item()
        mark("optimizer")
        opt.step()
        mark("zero_grad")
        opt.zero_grad(set_to_none=True)
        mark(None)
        return lv, correct

    epochs = []
    for e in range(a.epochs):
        perm = torch.from_numpy(order[e].astype(np.int64)).to(device)
        net.train()
        sync(device)
        t0 = time.perf_counter()
        c0 = time.process_time()
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        loss_sum, correct = 0.0, 0
        for s in range(steps):
            if a.schedule == "cosine":
                for g in opt.param_groups:
                    g["lr"] = h["lr"] * 0.5 * (1 + math.cos(math.pi * (e + s / steps) / a.epochs))
            idx = perm[s * a.batch:(s + 1) * a.batch]
            lv, c = step(idx)
            loss_sum += lv * idx.shape[0]
            correct += c
        sync(device)
        secs = time.perf_counter() - t0
        cpu = time.process_time() - c0
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
        net.eval()
        with torch.no_grad():
            tc = sum((net(xt[i:i + 256]).argmax(1) == yt[i:i + 256]).sum().item() for i in range(0, xt.shape[0], 256))
        rec = dict(kind="epoch", case=a.case, epoch=e + 1, seconds=secs, images_per_s=n / secs, cpu_seconds=cpu,
                   page_faults_per_step=faults / steps,
                   train_loss=loss_sum / n, train_accuracy=correct / n, test_accuracy=tc / xt.shape[0])
        epochs.append(rec)
        print(json.dumps(rec), flush=True)

    if a.save:
        np.savez(a.save, **{"p%03d" % i: p.detach().cpu().numpy() for i, p in enumerate(net.parameters())})
    out = dict(kind="summary", case=a.case, device=str(device), threads=a.threads, torch=torch.__version__,
               schedule=a.schedule, init="torch seed %d" % a.torch_init if a.torch_init is not None else "init.npz",
               n=n, batch=a.batch, epoch_seconds=[r["seconds"] for r in epochs],
               process_seconds=time.perf_counter() - t_start)
    if a.profile:
        out["phases"] = profile(step, x.shape[0], a.batch, a.profile, device)
    print(json.dumps(out), flush=True)


def profile(step, n, batch, steps, device):
    """Phase times (perf_counter, synchronised) and top-level operations per phase (autograd profiler)."""
    net_steps = max(1, min(steps, n // batch))
    idxs = [torch.arange(s * batch, (s + 1) * batch, device=device) for s in range(net_steps)]
    for idx in idxs[:3]:  # warm
        step(idx)
    times = {p: 0.0 for p in PHASES}
    state = {"p": None, "t": 0.0}

    def timer(p):
        sync(device)
        now = time.perf_counter()
        if state["p"] is not None:
            times[state["p"]] += now - state["t"]
        state["p"], state["t"] = p, time.perf_counter()

    for idx in idxs:
        timer_marks = timer
        step(idx, timer_marks)
    res = {p: {"ms": 1e3 * times[p] / len(idxs)} for p in PHASES}
    # one profiler session per phase of each step, as TrainBench.java does with libtorch's: exact attribution
    counts = {p: 0 for p in PHASES}
    us = {p: 0.0 for p in PHASES}
    names = {p: {} for p in PHASES}
    ctx = {"prof": None, "p": None}

    def close():
        if ctx["prof"] is None:
            return
        ctx["prof"].__exit__(None, None, None)
        p = ctx["p"]
        for ev in top_level(ctx["prof"].function_events):
            counts[p] += 1
            us[p] += ev.cpu_time_total
            names[p][ev.name] = names[p].get(ev.name, 0) + 1
        ctx["prof"] = None

    def marks(p):
        close()
        if p is not None:
            ctx["p"] = p
            ctx["prof"] = torch.autograd.profiler.profile()
            ctx["prof"].__enter__()

    for idx in idxs:
        step(idx, marks)
    for p in PHASES:
        res[p]["ops"] = counts[p] / len(idxs)
        res[p]["op_ms"] = us[p] / 1e3 / len(idxs)
        top = sorted(names[p].items(), key=lambda kv: -kv[1])[:4]
        res[p]["top"] = ", ".join(f"{k} {v / len(idxs):g}" for k, v in top)
    return res


def top_level(events):
    """The operations Python called: events without a parent, looking through torch.optim's own
    Optimizer.step / Optimizer.zero_grad wrappers (their children are the per-parameter operations)."""
    out = []
    for ev in events:
        if ev.cpu_parent is None:
            if ev.name.startswith("Optimizer."):
                out.extend(ev.cpu_children)
            else:
                out.append(ev)
    return out


if __name__ == "__main__":
    main()
