#!/usr/bin/env bash
# Process wall time of `ntk4j train` against the epochs' own seconds (issue #23: wall within 1.5 s of the epochs'
# sum), for the MLP 784-512-512-10 on the 60,000 MNIST training images, batch 128 (the command's defaults).
#
# Usage: benchmarks/train_wall.sh [EPOCHS]          (default: 1)
# Environment: MODEL (default mlp-relu), DATASET (default mnist), OUT (scratch folder, default a temp dir, removed),
#              NTK4J_THREADS and JAVA_OPTS as for ./ntk4j, EXTRA (more `ntk4j train` options),
#              ROOT (the checkout whose ./ntk4j runs; default this script's), NTK4J_TRACE_PHASES=1 (the phases
#              of the run, from the JVM's own marks, are printed after the row).
#
# Prints one markdown row: wall (launcher start to exit), the epochs' sum (metrics.jsonl "seconds"), wall − epochs
# (JVM and engine start, reading the data, the test evaluation, checkpoint, weights, report and plots, JVM exit), and
# the load average before the run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${ROOT:-$here}"
epochs="${1:-1}"
# shellcheck source=benchmarks/lib.sh
. "$here/benchmarks/lib.sh"
scratch_dir
prebuild "$root"
load="$(cut -d' ' -f1 /proc/loadavg)"
t0=$(now)
# shellcheck disable=SC2086
"$root/ntk4j" train --model "${MODEL:-mlp-relu}" --dataset "${DATASET:-mnist}" --epochs "$epochs" --out "$out/run" \
  --force ${EXTRA:-} > "$out/train.log" 2>&1 || { echo "| failed: $(tail -1 "$out/train.log") |"; exit 1; }
t1=$(now)
/usr/bin/python3 - "$out/run/metrics.jsonl" "$(echo "$t1 - $t0" | bc)" "$load" "$root" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
epochs = sum(r["seconds"] for r in recs if r.get("kind") == "epoch")
wall = float(sys.argv[2])
print(f"| {sys.argv[4]} | {wall:.2f} s | {epochs:.2f} s | {wall - epochs:.2f} s | {sys.argv[3]} |")
EOF
if [ -n "${NTK4J_TRACE_PHASES:-}" ]; then grep '^ntk4j: phase' "$out/train.log" || true; fi
