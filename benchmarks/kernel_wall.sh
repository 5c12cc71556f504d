#!/usr/bin/env bash
# Wall time of `ntk4j kernel` against the compute time its sidecar records, for the traced MLP of issue #21
# (mlp3-relu: 784-512-512-512-10 ReLU, MNIST, float32, --mode trace), metrics included.
#
# Usage: benchmarks/kernel_wall.sh [N ...]        (default: 1000 2000 4000 10000)
# Environment: MODEL (default mlp3-relu), DATASET (default mnist), OUT (scratch folder, default a temp dir, removed),
#              NTK4J_THREADS and JAVA_OPTS as for ./ntk4j, EXTRA (more `ntk4j kernel` options, e.g. "--eigenvalues 32").
#
# Per N it prints one markdown row: wall (the whole command, JVM start to exit), the train kernel's seconds
# (seconds_train_kernel), the metrics' seconds (seconds_metrics), the rest (wall − kernel − metrics: JVM start, engine
# start, data load, the NPZ write and hash), wall / kernel, wall / (kernel + metrics) (the #21 target is ≤ 1.15,
# metrics included) and the eigen-solve's passes.
# A first line times `ntk4j kernel --help` (JVM and CLI start without the engine), where PEER_PYTHON (default
# /usr/bin/python3) has torch a Python process that only imports torch (the fixed start a PyTorch script pays), where
# cc is found a C process that only loads DJL's libtorch_cpu.so (the floor of any process computing with it), and
# states the load.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
model="${MODEL:-mlp3-relu}"
dataset="${DATASET:-mnist}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 2000 4000 10000)
# shellcheck source=benchmarks/lib.sh
. "$here/benchmarks/lib.sh"
scratch_dir
prebuild "$here"
t0=$(now)
"$here/ntk4j" kernel --help > /dev/null
t1=$(now)
torch_start=
if "${PEER_PYTHON:-/usr/bin/python3}" -c 'import torch' > /dev/null 2>&1; then
  t2=$(now)
  "${PEER_PYTHON:-/usr/bin/python3}" -c 'import torch' > /dev/null 2>&1
  t3=$(now)
  torch_start="; a Python process importing torch (the peer's start alone): $(echo "$t3 - $t2" | bc) s"
fi
# the floor of any process that computes with DJL's libtorch: a C program that only maps libtorch_cpu.so (dlopen runs
# PyTorch's static initialisers: operator registration) and exits
libtorch_start=
lib=
for l in "${PYTORCH_LIBRARY_PATH:-/nonexistent}/libtorch_cpu.so" "${ENGINE_CACHE_DIR:-$HOME/.djl.ai}"/pytorch/*/libtorch_cpu.so; do
  if [ -f "$l" ]; then lib="$l"; fi
done
if [ -n "$lib" ] && command -v cc > /dev/null \
   && printf '%s\n' '#include <dlfcn.h>' '#include <stdio.h>' \
        'int main(int c, char **v) { if (!dlopen(v[1], RTLD_NOW | RTLD_GLOBAL)) { puts(dlerror()); return 1; } return 0; }' \
      | cc -x c -o "$out/dlopen" - -ldl 2> /dev/null; then
  "$out/dlopen" "$lib" > /dev/null # once for the page cache
  t2=$(now)
  if "$out/dlopen" "$lib" > /dev/null; then
    t3=$(now)
    libtorch_start="; a C process that only loads libtorch_cpu.so: $(echo "$t3 - $t2" | bc) s"
  fi
fi
echo "load: $(uptime | sed 's/.*load average: //'); $(nproc) cores; \`ntk4j kernel --help\`: $(echo "$t1 - $t0" | bc) s$torch_start$libtorch_start"
echo
echo "| N | wall | kernel | metrics | rest | wall / kernel | wall / (kernel + metrics) | eigen passes |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for n in "${sizes[@]}"; do
  k="$out/k$n.npz"
  t0=$(now)
  # shellcheck disable=SC2086
  "$here/ntk4j" kernel --model "$model" --dataset "$dataset" --n "$n" --out "$k" --force ${EXTRA:-} > "$out/k$n.log" 2>&1 \
    || { echo "| $n | failed: $(tail -1 "$out/k$n.log") |"; continue; }
  t1=$(now)
  /usr/bin/python3 - "$out/k$n.json" "$(echo "$t1 - $t0" | bc)" "$n" <<'EOF'
import json, sys
side = json.load(open(sys.argv[1]))
wall, n = float(sys.argv[2]), sys.argv[3]
kernel = side["seconds_train_kernel"]
metrics = side.get("seconds_metrics", side["seconds_total"] - kernel)
passes = side["metrics"].get("eigen_passes", "-")
print(f"| {n} | {wall:.2f} s | {kernel:.2f} s | {metrics:.2f} s | {wall - kernel - metrics:.2f} s "
      f"| {wall / kernel:.2f} | {wall / (kernel + metrics):.2f} | {passes} |")
EOF
  rm -f "$k"
done
