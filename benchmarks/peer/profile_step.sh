#!/usr/bin/env bash
# One training step phase by phase, ntk4j against the plain torch loop, interleaved on one machine: ntk4j's TrainLoop
# (benchmarks/peer/TrainBench.java profile) run with the launcher's environment, and train_peer.py --profile with the
# peer's best setting, ROUNDS times in turn, then one table of milliseconds per step and phase.
#
#   benchmarks/peer/profile_step.sh [CASE] [STEPS] [ROUNDS] [OTHER_CHECKOUT ...]
#
# CASE mlp (default) or resnet20; STEPS timed steps (default 400); ROUNDS (default 2); THREADS (environment, default 2)
# for both sides (the peer's OpenBLAS included, benchmarks/peer/peer_blas.py). Each OTHER_CHECKOUT (a built
# checkout of another commit, e.g. the one before a change) is profiled in the same rounds, in the other order every
# second round. Run from a built checkout
# (`mvn -B -o -q -DskipTests package`); the first run exports the case's data for torch (TrainBench.java export).
# Without the launcher's environment (OpenMP wait policy, allocator settings, huge pages, MKL's AMD shim) the MLP
# step took 13 ms instead of 7 (docs/training-speed.md): this script sets it as ./ntk4j does.
set -euo pipefail
cd "$(dirname "$0")/../.."
CASE=${1:-mlp}
STEPS=${2:-400}
ROUNDS=${3:-2}
THREADS=${THREADS:-2}
shift $(( $# < 3 ? $# : 3 ))
SIDES=("$PWD" "$@")
PY=${PEER_PYTHON:-/usr/bin/python3}
./ntk4j --help > /dev/null # builds the jar and, on AMD, the MKL shim the launcher preloads
OUT=$(mktemp -d /tmp/profile-step.XXXXXX)
if [ ! -f "target/train-bench/$CASE/data.npz" ]; then
  java -Dai.djl.offline=true -cp "target/ntk4j.jar:$(cat target/classpath.txt)" benchmarks/peer/TrainBench.java \
    export "$CASE" "target/train-bench/$CASE" 1 > /dev/null
fi
# shellcheck source=benchmarks/lib.sh
. benchmarks/lib.sh # launcher_env: the environment ./ntk4j gives the JVM
for r in $(seq 1 "$ROUNDS"); do
  order=("${SIDES[@]}")
  if [ $((r % 2)) = 0 ]; then # every second round in the other order: the side that runs first can pay more
    order=(); for ((i = ${#SIDES[@]} - 1; i >= 0; i--)); do order+=("${SIDES[$i]}"); done
  fi
  for dir in "${order[@]}"; do
    mapfile -t envs < <(launcher_env "$dir" "$THREADS" train)
    (cd "$dir" && env "${envs[@]}" java -XX:+UseTransparentHugePages -Dai.djl.offline=true \
        -Dai.djl.pytorch.num_threads="$THREADS" -Dai.djl.pytorch.num_interop_threads=1 \
        -cp "target/ntk4j.jar:$(cat target/classpath.txt)" "$OLDPWD/benchmarks/peer/TrainBench.java" \
        profile "$CASE" "$STEPS" 10 2> /dev/null | grep '^{' | sed "s|^{|{\"side\":\"ntk4j $dir\",\"round\":$r,|") \
        >> "$OUT/rows.jsonl"
  done
  OPENBLAS_CORETYPE=SkylakeX OMP_WAIT_POLICY=PASSIVE "$PY" benchmarks/peer/train_peer.py --case "$CASE" \
      --data "target/train-bench/$CASE" --epochs 1 --threads "$THREADS" --profile "$STEPS" 2> /dev/null \
      | grep '"summary"' | sed "s|^{|{\"side\":\"torch\",\"round\":$r,|" >> "$OUT/rows.jsonl"
  echo "round $r of $ROUNDS done (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
done
"$PY" - "$OUT/rows.jsonl" "$CASE" <<'PYEOF'
import json, sys
phases = ["batch", "forward", "loss", "backward", "metrics", "optimizer", "zero_grad", "cleanup"]
print(f"{sys.argv[2]}, ms per step (ratio = torch step / this side's step); raw JSON: {sys.argv[1]}\n")
print("| round | side | step | ratio | " + " | ".join(phases) + " |")
print("| --- | --- | --- | --- | " + " | ".join("---" for _ in phases) + " |")
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in sorted({x["round"] for x in rows}):
    rr = [x for x in rows if x["round"] == r]
    torch = [x for x in rr if x["side"] == "torch"]
    tstep = sum(v["ms"] for v in torch[0]["phases"].values()) if torch else None
    for x in rr:
        step = x.get("step_ms") or sum(v["ms"] for v in x["phases"].values())
        ratio = f"{tstep / step:.2f}x" if tstep and x["side"] != "torch" else ""
        cells = [f"{x['phases'][p]['ms']:.3f}" if p in x["phases"] else "" for p in phases]
        print(f"| {r} | {x['side']} | {step:.3f} | {ratio} | " + " | ".join(cells) + " |")
PYEOF
