#!/usr/bin/env python3
"""Independent check of an ntk4j kernel NPZ for a ReLU/tanh MLP, in numpy alone.

Rebuilds the network from the parameters stored in the NPZ (dense W as out x in, forward order),
computes per-sample Jacobians by explicit backprop for a few inputs, and compares
Theta[i,j] = sum_o <df_o(x_i)/dtheta, df_o(x_j)/dtheta> with the NPZ's traced `ntk`.
Usage: check_mlp_ntk.py K.npz [relu|tanh] [count]
"""
import sys
import numpy as np

path = sys.argv[1]
act = sys.argv[2] if len(sys.argv) > 2 else "relu"
count = int(sys.argv[3]) if len(sys.argv) > 3 else 8
z = np.load(path)
layers = []
l = 1
while f"dense{l}.weight" in z:
    W = z[f"dense{l}.weight"].astype(np.float64)
    b = z[f"dense{l}.bias"].astype(np.float64) if f"dense{l}.bias" in z else None
    layers.append((W, b))
    l += 1
x = z["x1"].reshape(z["x1"].shape[0], -1).astype(np.float64)
K = z["ntk"]
phi = (lambda h: np.maximum(h, 0), lambda h: (h > 0).astype(float)) if act == "relu" else (np.tanh, lambda h: 1 - np.tanh(h) ** 2)


def jacobian(xi):
    """Rows: outputs o; columns: all parameters in forward order (W then b per layer)."""
    acts, pres = [xi], []
    a = xi
    for k, (W, b) in enumerate(layers):
        h = W @ a + (b if b is not None else 0)
        pres.append(h)
        a = phi[0](h) if k < len(layers) - 1 else h
        acts.append(a)
    O = layers[-1][0].shape[0]
    rows = []
    for o in range(O):
        delta = np.zeros(O)
        delta[o] = 1.0
        grads = []
        for k in range(len(layers) - 1, -1, -1):
            W, b = layers[k]
            grads.append((np.outer(delta, acts[k]).ravel(), delta.copy() if b is not None else np.zeros(0)))
            if k > 0:
                delta = (W.T @ delta) * phi[1](pres[k - 1])
        grads.reverse()
        rows.append(np.concatenate([np.concatenate([gw, gb]) for gw, gb in grads]))
    return np.array(rows)


idx = np.linspace(0, x.shape[0] - 1, count).astype(int)
J = [jacobian(x[i]) for i in idx]
worst = 0.0
for a, i in enumerate(idx):
    for c, j in enumerate(idx):
        ref = float(np.sum(J[a] * J[c]))
        worst = max(worst, abs(K[i, j] - ref) / abs(ref))
print(f"{count}x{count} entries of {path}: max relative difference to numpy backprop = {worst:.2e}")
sys.exit(0 if worst < 1e-4 else 1)
