#!/usr/bin/env bash
# The approximate kernels beside the exact one, as a markdown table: the traced NTK of a model (default mlp-relu) on
# N MNIST train images, its test×train kernel on M test images; for the exact kernel, pNTK and Nyström at each rank:
# the held-out relative Frobenius error and alignment against the exact kernel (500 train images, from the sidecar),
# the kernel regression test accuracy on the M test images (ntk4j regress, t = inf, ridge 0), and the wall seconds of
# the kernel command and of regress.
#
#   benchmarks/approx_table.sh [N] [M] ["RANKS"] [MODEL]      e.g.  benchmarks/approx_table.sh 10000 2000 "500 1000 2000"
#
# Writes the table to stdout and to $OUT/table.md (OUT defaults to a fresh temporary folder, kept).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${1:-10000}"
m="${2:-2000}"
ranks="${3:-500 1000 2000}"
model="${4:-mlp-relu}"
out="${OUT:-$(mktemp -d -t approx-table.XXXXXX)}"
mkdir -p "$out"
ntk4j="$here/ntk4j"
common=(--model "$model" --dataset mnist --n "$n" --test "$m" --force)

json() { # json FILE PYTHON-EXPRESSION-ON-d
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

row() { # row NAME APPROX-OR-EMPTY
  local name="$1" approx="$2" file="$out/$1.npz" t0 t1 t2
  t0=$(date +%s.%N)
  if [ -z "$approx" ]; then
    "$ntk4j" kernel "${common[@]}" --out "$file" >"$out/$name.log" 2>&1
  else
    "$ntk4j" kernel "${common[@]}" --approx "$approx" --out "$file" >"$out/$name.log" 2>&1
  fi
  t1=$(date +%s.%N)
  "$ntk4j" regress --kernel "$file" --out "$out/$name-regress" >>"$out/$name.log" 2>&1
  t2=$(date +%s.%N)
  local acc err align rank
  acc=$(json "$out/$name-regress/results.json" "'%.4f' % d['test_accuracy']")
  if [ -z "$approx" ]; then
    err="0"; align="1"; rank="$n"
  else
    err=$(json "$out/$name.json" "'%.4g' % d['approx']['error']['relative_frobenius_error']")
    align=$(json "$out/$name.json" "'%.6f' % d['approx']['error']['alignment']")
    rank=$(json "$out/$name.json" "d['approx']['rank']")
  fi
  printf '| %s | %s | %s | %s | %s | %.1f | %.1f |\n' "$name" "$rank" "$err" "$align" "$acc" \
    "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" | tee -a "$out/table.md"
}

{
  echo "traced NTK of $model, N = $n MNIST train images, M = $m test images; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| kernel | rank | held-out rel. Frobenius error | alignment | regression test accuracy | kernel s | regress s |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
} | tee "$out/table.md"
row exact ""
row pntk pntk
for r in $ranks; do
  row "nystrom-$r" "nystrom:$r"
done
# sketched tangent features at the ranks in SKETCH_RANKS (e.g. SKETCH_RANKS="256 1024 4096"), none by default
for k in ${SKETCH_RANKS:-}; do
  row "sketch-$k" "sketch:$k"
done
echo "table: $out/table.md" >&2
