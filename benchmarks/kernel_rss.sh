#!/usr/bin/env bash
# Peak RSS and the sidecar's metrics seconds of one full kernel, two builds interleaved:
#   benchmarks/kernel_rss.sh BASE_CLASSES [N] [MEMORY] [ROUNDS]
# BASE_CLASSES: another build's target/classes (e.g. a copy of main's); this checkout's target/classes is the other.
# Runs `kernel --model mlp-quickstart --dataset mnist-subset --n N --mode full --memory MEMORY` under /usr/bin/time
# with the launcher's glibc settings, one libtorch thread. Needs `mvn -B -o -q -DskipTests package` first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base="$1"; n="${2:-500}"; mem="${3:-256m}"; rounds="${4:-3}"
cp="$(cat "$here/target/classpath.txt")"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
  for v in base this; do
    cls="$base"; [ "$v" = this ] && cls="$here/target/classes"
    MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=268435456 OMP_WAIT_POLICY=PASSIVE \
      /usr/bin/time -o "$tmp/rss" -f %M java -Xmx8g -Dai.djl.offline=true -Dai.djl.pytorch.num_threads=1 \
      -Dntk4j.root="$here" -Djava.awt.headless=true -cp "$cls:$cp" org.ntk4j.cli.Main kernel --model mlp-quickstart \
      --dataset mnist-subset --n "$n" --mode full --memory "$mem" --force --out "$tmp/$v.npz" > "$tmp/log" 2>&1
    secs="$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['seconds_metrics'], d['seconds_train_kernel'])" "$tmp/$v.json")"
    echo "$v round $r: peak $(( $(tail -1 "$tmp/rss") / 1024 )) MiB, metrics/kernel seconds $secs"
  done
done
uptime
