"""Exact-kernel regression (t = inf, ridge lambda) on an `ntk4j kernel` NPZ, solved by LU in float64 with torch.

The peer of `ntk4j regress` at t = inf: it holds the kernel once in float64 plus torch.linalg.solve's LU copy
(2 x 8 N^2 bytes), as `ntk4j regress` does (a Java copy and MKL's LU on one native copy). Targets: y1 one-hot over the classes of y1 and y2 (as ntk4j regress).
Prints one JSON line: n, test, train/test accuracy and MSE, the relative residual ||(K + lambda I) alpha - Y|| / ||Y||,
and the seconds of the solve.

    OPENBLAS_CORETYPE=SkylakeX OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 benchmarks/peer/exact_regress.py K.npz [RIDGE]
"""
import json
import sys
import time
import zipfile

import numpy as np
import torch


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    path = sys.argv[1]
    ridge = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    with zipfile.ZipFile(path) as z:
        names = {n[:-4] for n in z.namelist() if n.endswith(".npy")}
    for need in ("ntk", "y1"):
        if need not in names:
            print(f"{path}: no '{need}' entry (an exact `ntk4j kernel` NPZ expected)", file=sys.stderr)
            sys.exit(2)
    z = np.load(path)
    y1 = z["y1"]
    y2 = z["y2"] if "y2" in names else None
    classes = np.unique(np.concatenate([y1, y2]) if y2 is not None else y1)
    onehot = lambda y: torch.from_numpy((y[:, None] == classes[None, :]).astype(np.float64))
    y = onehot(y1)
    k = torch.from_numpy(z["ntk"]).to(torch.float64)
    n = k.shape[0]
    k.diagonal().add_(ridge)
    t0 = time.time()
    alpha = torch.linalg.solve(k, y)
    seconds = time.time() - t0
    residual = float(torch.linalg.norm(k @ alpha - y) / torch.linalg.norm(y))
    k.diagonal().sub_(ridge)
    f = k @ alpha
    del k
    out = {"kernel": path, "n": n, "ridge": ridge, "solve_seconds": round(seconds, 1), "relative_residual": residual,
           "train_accuracy": float((f.argmax(1) == y.argmax(1)).double().mean()),
           "train_mse": float(((f - y) ** 2).mean())}
    if "ntk_test" in names and y2 is not None:
        kt = torch.from_numpy(z["ntk_test"]).to(torch.float64)
        ft = kt @ alpha
        yt = onehot(y2)
        out.update(test=kt.shape[0], test_accuracy=float((ft.argmax(1) == yt.argmax(1)).double().mean()),
                   test_mse=float(((ft - yt) ** 2).mean()))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
