#!/usr/bin/env python3
"""`ntk4j train` against the plain PyTorch loop of train_peer.py, interleaved, with the ratio table.

For each round and case it runs `ntk4j train` (a fresh process, as a user does) and then the peer on the same data,
batch order and initial weights (exported once by TrainBench.java into target/train-bench/CASE), and prints per
epoch: ntk4j's seconds (metrics.jsonl), the peer's, the ratio torch / ntk4j (>= 0.9 is the target), the process
walls and how far each wall is above the sum of its epochs (target for ntk4j: <= 1.5 s), and the accuracies.

From the repository root, after `mvn -B -o -q -DskipTests package`:

  OPENBLAS_CORETYPE=SkylakeX OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 benchmarks/peer/train_compare.py \
      --cases mlp,resnet20 --rounds 2 --epochs 2 --threads 2

--ntk4j LABEL=COMMAND (repeatable) compares several ntk4j builds in the same interleaved run, e.g.
--ntk4j after=./ntk4j --ntk4j before=/tmp/before/ntk4j; the default is after=./ntk4j. --device cuda runs both
sides on the GPU (ntk4j train --device gpu). --json FILE also writes every measurement. --data-dir, --java,
--classpath and --bench-dir point it elsewhere than the repository (benchmarks/gpu/run.sh's training step). By default each ntk4j
launcher applies its own OMP_WAIT_POLICY and allocator settings (the peer's are not passed on); --keep-env passes
this shell's to every side (to compare builds with the same process settings).
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# the settings TrainBench.java's cases use (model, dataset, --n, --test, lr, weight decay)
CASES = {
    "mlp": ("mlp-relu", "mnist", None, None, 0.05, 0.0),
    "resnet20": ("resnet20", "cifar10", 200, 100, 0.1, 5e-4),
    "resnet20-full": ("resnet20", "cifar10", None, None, 0.1, 5e-4),
}


def java_cmd(threads, java, classpath):
    cp = classpath or (os.path.join(ROOT, "target", "ntk4j.jar") + ":"
                       + open(os.path.join(ROOT, "target", "classpath.txt")).read().strip())
    return [java, "-Xmx8g", "-Dai.djl.offline=true", f"-Dai.djl.pytorch.num_threads={threads}",
            "-Dai.djl.pytorch.num_interop_threads=1", "-cp", cp]


def export(case, epochs, threads, a):
    d = os.path.join(a.bench_dir, case)
    f = os.path.join(d, "data.npz")
    if os.path.exists(f):
        import numpy as np
        if np.load(f)["order"].shape[0] >= epochs:
            return d
    cmd = java_cmd(threads, a.java, a.classpath) + [os.path.join(HERE, "TrainBench.java"), "export", case, d,
                                                     str(epochs)]
    subprocess.run(cmd, check=True, cwd=ROOT)
    return d


def run_ntk4j(command, case, epochs, threads, device, out, keep_env):
    model, dataset, n, test, lr, wd = CASES[case]
    args = shlex.split(command) + ["train", "--model", model, "--dataset", dataset, "--epochs", str(epochs),
                                   "--batch-size", "128", "--lr", str(lr), "--momentum", "0.9", "--seed", "0",
                                   "--out", out, "--force", "--device", "gpu" if device == "cuda" else "cpu"]
    if n:
        args += ["--n", str(n)]
    if test:
        args += ["--test", str(test)]
    if wd:
        args += ["--weight-decay", str(wd)]
    # each launcher applies its own OpenMP and allocator defaults (the peer's OMP_WAIT_POLICY is not passed on)
    env = {k: v for k, v in os.environ.items()
           if keep_env or k not in ("OMP_WAIT_POLICY", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")}
    env["NTK4J_THREADS"] = str(threads)
    t0 = time.perf_counter()
    r = subprocess.run(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"ntk4j train failed ({r.returncode}): {r.stderr[-2000:]}")
    epochs_rec = []
    with open(os.path.join(out, "metrics.jsonl")) as f:
        for line in f:
            o = json.loads(line)
            if o.get("kind") == "epoch":
                epochs_rec.append(o)
    return dict(wall=wall, seconds=[e["seconds"] for e in epochs_rec],
                train_accuracy=[e.get("train_accuracy") for e in epochs_rec],
                test_accuracy=[e.get("test_accuracy") for e in epochs_rec])


def run_peer(case, data, epochs, threads, device):
    cmd = [sys.executable, os.path.join(HERE, "train_peer.py"), "--case", case, "--data", data, "--epochs",
           str(epochs), "--threads", str(threads), "--device", device]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"peer failed ({r.returncode}): {r.stderr[-2000:]}")
    recs = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    ep = [o for o in recs if o["kind"] == "epoch"]
    return dict(wall=wall, seconds=[e["seconds"] for e in ep], train_accuracy=[e["train_accuracy"] for e in ep],
                test_accuracy=[e["test_accuracy"] for e in ep], torch=recs[-1].get("torch"))


def load():
    try:
        return open("/proc/loadavg").read().split()[0]
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default="mlp,resnet20")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--ntk4j", action="append", metavar="LABEL=COMMAND")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--java", default="java", help="the java that runs TrainBench.java's export (default: java)")
    ap.add_argument("--classpath", help="ntk4j's classpath for the export (default: target/ntk4j.jar and "
                    "target/classpath.txt)")
    ap.add_argument("--bench-dir", default=os.path.join(ROOT, "target", "train-bench"),
                    help="where the exported data and initial weights go (default: target/train-bench)")
    ap.add_argument("--data-dir", help="the data folder for both sides (NTK4J_DATA; default: ntk4j's own)")
    ap.add_argument("--keep-env", action="store_true",
                    help="pass this shell's OMP_WAIT_POLICY / MALLOC_* on to ntk4j (default: each launcher's own)")
    a = ap.parse_args()
    variants = [v.split("=", 1) for v in (a.ntk4j or ["after=./ntk4j"])]
    cases = a.cases.split(",")
    for c in cases:
        if c not in CASES:
            sys.exit(f"unknown case {c}; expected one of {sorted(CASES)}")
    if a.data_dir:
        os.environ["NTK4J_DATA"] = os.path.abspath(a.data_dir)
    data = {c: export(c, a.epochs, a.threads, a) for c in cases}
    rows = []
    with tempfile.TemporaryDirectory(prefix="ntk4j-train-compare") as tmp:
        for rnd in range(1, a.rounds + 1):
            for c in cases:
                for label, command in variants:
                    l0 = load()
                    r = run_ntk4j(command, c, a.epochs, a.threads, a.device, os.path.join(tmp, f"{c}-{label}"),
                                  a.keep_env)
                    rows.append(dict(round=rnd, case=c, side="ntk4j " + label, load=l0, **r))
                    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
                l0 = load()
                r = run_peer(c, data[c], a.epochs, a.threads, a.device)
                rows.append(dict(round=rnd, case=c, side="torch", load=l0, **r))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    print(f"\n{a.device}, {a.threads} threads, batch 128, {a.epochs} epochs; ratio = torch epoch / ntk4j epoch")
    print("| case | round | side | epoch s | ratio | wall s | wall - epochs s | train acc | test acc | load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for rnd in range(1, a.rounds + 1):
        for c in cases:
            peer = next(r for r in rows if r["round"] == rnd and r["case"] == c and r["side"] == "torch")
            for r in [r for r in rows if r["round"] == rnd and r["case"] == c]:
                ratio = "" if r is peer else ", ".join(f"{p / s:.2f}x" for p, s in zip(peer["seconds"], r["seconds"]))
                print(f"| {c} | {rnd} | {r['side']} | {', '.join(f'{s:.2f}' for s in r['seconds'])} | {ratio} "
                      f"| {r['wall']:.1f} | {r['wall'] - sum(r['seconds']):.1f} "
                      f"| {fmt(r['train_accuracy'][-1])} | {fmt(r['test_accuracy'][-1])} | {r['load']} |")


def fmt(v):
    return "" if v is None else f"{v:.4f}"


if __name__ == "__main__":
    main()
