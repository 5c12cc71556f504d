#!/usr/bin/env bash
# Interleaved A/B of `ntk4j kernel` between two checkouts (the traced MLP of issue #21: mlp3-relu, MNIST, float32,
# metrics included): per pair BEFORE's run, then this checkout's. Prints per side the medians of the wall time, the
# sidecar's seconds_train_kernel and seconds_metrics (with their range), the eigen-solve's passes, and the last run's
# λ₁, λ₃₂, the fraction of the targets in the top eigenvectors and the backward error, so that a change to the metrics
# is seen to leave their values.
#
#   BEFORE=DIR benchmarks/metrics/metrics_ab.sh N [PAIRS]      (PAIRS default 6)
#
# BEFORE: another checkout, built (e.g. `git worktree add /tmp/before HEAD~1 && /tmp/before/ntk4j --version`).
# Environment: EXTRA (more `ntk4j kernel` options), MODEL (default mlp3-relu), DATASET (default mnist).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
n="${1:?usage: BEFORE=DIR benchmarks/metrics/metrics_ab.sh N [PAIRS]}"
pairs="${2:-6}"
before="${BEFORE:?BEFORE must name another built checkout}"
# shellcheck source=benchmarks/lib.sh
. "$here/benchmarks/lib.sh"
scratch_dir
prebuild "$here"
prebuild "$before"
echo "load: $(uptime | sed 's/.*load average: //'); $(nproc) cores; before: $before"
for _ in $(seq 1 "$pairs"); do
  for side in before after; do
    d="$before"
    [ "$side" = after ] && d="$here"
    t0=$(now)
    # shellcheck disable=SC2086
    "$d/ntk4j" kernel --model "${MODEL:-mlp3-relu}" --dataset "${DATASET:-mnist}" --n "$n" --out "$out/$side.npz" --force \
      ${EXTRA:-} > "$out/$side.log" 2>&1 || { echo "$side failed: $(tail -1 "$out/$side.log")"; exit 1; }
    t1=$(now)
    DIR="$out" SIDE=$side WALL=$(echo "$t1 - $t0" | bc) /usr/bin/python3 -c '
import json, os
side = os.environ["SIDE"]
s = json.load(open(os.path.join(os.environ["DIR"], side + ".json")))
m = s["metrics"]
print(side, os.environ["WALL"], s["seconds_train_kernel"], s["seconds_metrics"], m.get("eigen_passes"),
      repr(m["eigenvalues"][0]), repr(m["eigenvalues"][min(31, len(m["eigenvalues"]) - 1)]),
      repr(m.get("target_power_top_classes")), m.get("eigen_residual"))' >> "$out/runs.txt"
  done
done
/usr/bin/python3 - "$out/runs.txt" "$n" <<'EOF2'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
for side in ("before", "after"):
    r = [x for x in rows if x[0] == side]
    w, k, m = ([float(x[i]) for x in r] for i in (1, 2, 3))
    last = r[-1]
    print(f"N={sys.argv[2]} {side:6s} wall {st.median(w):.3f} s, kernel {st.median(k):.3f} s, metrics {st.median(m):.3f} s "
          f"({min(m):.3f}-{max(m):.3f}), passes {last[4]}; λ1 {last[5]}, λ32 {last[6]}, target power {last[7]}, "
          f"backward error {last[8]}")
EOF2
