#!/usr/bin/env python3
"""Independent check of an ntk4j probe kernel (runs/X/ntk-step<k>.npz) for a ReLU/tanh MLP, in numpy alone.

A probe kernel NPZ holds the traced kernel `ntk` and the weights it was computed with; the probe set
is in `probe-inputs.npz` beside it (`x`, `y`). This joins the two into a kernel-command-style NPZ
(`x1`, `y1`, weights, `ntk`) and runs check_mlp_ntk.py on it.
Usage: check_probe_kernel.py runs/X/ntk-step000000.npz [relu|tanh] [count]
"""
import os
import subprocess
import sys
import tempfile
import numpy as np

step = sys.argv[1]
inputs = np.load(os.path.join(os.path.dirname(step) or ".", "probe-inputs.npz"))
z = dict(np.load(step))
z["x1"], z["y1"] = inputs["x"], inputs["y"]
with tempfile.TemporaryDirectory() as d:
    joined = os.path.join(d, os.path.basename(step))
    np.savez(joined, **z)
    here = os.path.dirname(os.path.abspath(__file__))
    rc = subprocess.call([sys.executable, os.path.join(here, "check_mlp_ntk.py"), joined] + sys.argv[2:])
sys.exit(rc)
