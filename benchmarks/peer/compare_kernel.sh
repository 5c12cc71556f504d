#!/usr/bin/env bash
# ntk4j's kernel engine against the PyTorch peer (benchmarks/peer/ntk_peer.py), interleaved on one machine with the
# same thread count: the MLP cases against the factorised peer, ResNet-20 against vmap(jacrev). Prints a markdown
# table of medians over the rounds, ratio = peer time / ntk4j time (> 1: ntk4j is faster), also of process CPU time
# (on a loaded machine the wall time measures the machine, the CPU time the work), with each side's phase split,
# ntk4j's engine operations per tile pair and whether its bytes to the host equal the output's size.
#
#   benchmarks/peer/compare_kernel.sh [ROUNDS] [CASES]
#
# ROUNDS default 2; CASES (comma list) default: every case of the issue's table. Environment: THREADS (default 2),
# PEER_PYTHON (default /usr/bin/python3, torch with a fast BLAS: see benchmarks/RESULTS.md), WARMUP (1), REPS (3),
# WARMUP_S (2: each side warms up for at least WARMUP runs and WARMUP_S seconds per case, as JMH does, because HotSpot
# compiles ntk4j's Java around the engine calls during the first hundreds of runs of a small case; 0 for cold runs),
# NTK4J_MKL_AMD, NTK4J_SPIN, GOMP_SPINCOUNT, MALLOC_* (ntk4j's side, as for ./ntk4j; default the launcher's).
# Needs the core compiled offline-capable (it runs `mvn -o -q compile` itself); writes its raw JSON to a temporary
# folder it names at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-2}
CASES=${2:-a-fcn2048-full,b-mlp512-trace,b-mlp512-full,c-resnet20-trace,d-mlp3-trace-1000,d-mlp3-trace-2000,d-mlp3-trace-4000,d-mlp3-trace-8000}
THREADS=${THREADS:-2}
WARMUP=${WARMUP:-1}
REPS=${REPS:-3}
WARMUP_S=${WARMUP_S:-2}
PY=${PEER_PYTHON:-/usr/bin/python3}
OUT=$(mktemp -d /tmp/compare-kernel.XXXXXX)
# ntk4j runs as the launcher runs it: its environment (launcher_env: MKL's shim on AMD, the allocator settings, huge
# pages, the OpenMP wait the launcher picks for THREADS threads), printed once here
./ntk4j --help > /dev/null # builds the jar and, on AMD, the MKL shim the launcher preloads
# shellcheck source=benchmarks/lib.sh
. benchmarks/lib.sh
mapfile -t NTK4J_ENV < <(launcher_env "$PWD" "$THREADS")
echo "ntk4j's environment: ${NTK4J_ENV[*]}" >&2

mvn -B -o -q compile -Dspotless.check.skip=true -Dcheckstyle.skip >/dev/null
mvn -B -o -q dependency:build-classpath -Dmdep.outputFile="$OUT/cp.txt" >/dev/null
CP="target/classes:$(cat "$OUT/cp.txt")"

DENSE=$(tr ',' '\n' <<<"$CASES" | grep -v '^c-' | paste -sd, - || true)
CONV=$(tr ',' '\n' <<<"$CASES" | grep '^c-' | paste -sd, - || true)

# the peer at its best setting: workers that sleep between regions (with the default active wait, an oversubscribed
# machine slows libtorch's small ops by orders of magnitude; spinning OpenMP workers also fight its OpenBLAS threads)
export OPENBLAS_CORETYPE=SkylakeX

ntk4j() {
    env "${NTK4J_ENV[@]}" java -XX:+UseTransparentHugePages -Dai.djl.offline=true \
        -Dai.djl.pytorch.num_threads="$THREADS" -Dharness.warmupSeconds="$WARMUP_S" -Xmx8g -cp "$CP" \
        benchmarks/peer/KernelHarness.java "$CASES" "$WARMUP" "$REPS" >>"$OUT/ntk4j.jsonl"
}
peer() {
    if [ -n "$DENSE" ]; then
        OMP_WAIT_POLICY=PASSIVE "$PY" benchmarks/peer/ntk_peer.py --threads "$THREADS" --devices cpu --methods factorised --cases "$DENSE" \
            --warmup "$WARMUP" --warmup-seconds "$WARMUP_S" --reps "$REPS" 2>/dev/null >"$OUT/peer-factorised-$1.json"
    fi
    if [ -n "$CONV" ]; then
        OMP_WAIT_POLICY=PASSIVE "$PY" benchmarks/peer/ntk_peer.py --threads "$THREADS" --devices cpu --methods jacrev --cases "$CONV" \
            --warmup "$WARMUP" --warmup-seconds "$WARMUP_S" --reps "$REPS" 2>/dev/null >"$OUT/peer-jacrev-$1.json"
    fi
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then ntk4j; peer "$r"; else peer "$r"; ntk4j; fi
    echo "round $r of $ROUNDS done ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

"$PY" - "$OUT" "$LOAD0" "$LOAD1" "$THREADS" "$WARMUP" "$WARMUP_S" "$REPS" <<'PYEOF'
import glob, json, statistics, sys
out, load0, load1, threads, warmup, warmup_s, reps = sys.argv[1:8]
ours, peer = {}, {}
for line in open(f"{out}/ntk4j.jsonl"):
    r = json.loads(line)
    ours.setdefault(r["case"], []).append(r)
for f in sorted(glob.glob(f"{out}/peer-*.json")):
    for r in json.load(open(f))["results"]:
        peer.setdefault(r["case"], []).append(r)
med = lambda rs, k: statistics.median(r[k] for r in rs if k in r) if any(k in r for r in rs) else float("nan")
print(f"ntk4j vs PyTorch peer, {threads} threads, CPU; load average {load0} -> {load1}; raw JSON in {out}")
print(f"each side per case: warm-up of at least {warmup} runs and {warmup_s} s, then the median of {reps} runs; medians over the rounds\n")
print("| case | ntk4j ms | peer ms | ratio (peer / ntk4j) | warm-up runs ntk4j / peer | CPU ms ntk4j / peer (ratio) | ntk4j factors / contraction / host ms | peer factors / contraction ms | ntk4j ops per tile pair | host bytes = output |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for case, rs in ours.items():
    ps = peer.get(case, [])
    o = med(rs, "ms_median")
    p = med(ps, "ms_median") if ps else float("nan")
    split = f"{med(rs, 'factors_ms'):.1f} / {med(rs, 'contraction_ms'):.1f} / {med(rs, 'host_ms'):.1f}"
    psplit = f"{med(ps, 'factors_ms'):.1f} / {med(ps, 'contraction_ms'):.1f}" if ps and "factors_ms" in ps[0] else (ps[0]["method"] if ps else "-")
    hb = all(r["host_bytes"] == r["output_bytes"] for r in rs)
    oc, pc = med(rs, "cpu_ms_median"), med(ps, "cpu_ms_median") if ps else float("nan")
    wu = f"{med(rs, 'warmup_runs'):.0f} / {med(ps, 'warmup_runs'):.0f}" if ps else "-"
    print(f"| {case} | {o:.1f} | {p:.1f} | {p / o:.2f}x | {wu} | {oc:.0f} / {pc:.0f} ({pc / oc:.2f}x) | {split} | {psplit} | {rs[0]['ops_per_pair']} | {'yes' if hb else 'NO'} |")
PYEOF
