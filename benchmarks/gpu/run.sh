#!/usr/bin/env bash
# The GPU check: runs ntk4j's GPU path end to end from the bundle of make-bundle.sh, on a machine with
# PyTorch 2.x in python3, g++, and no JDK, no Maven, no network; or, in CPU mode, the same steps at tiny
# sizes on the CPU (CI). Writes one results folder with a markdown table (table.md) ready for
# benchmarks/RESULTS.md. See benchmarks/gpu/README.md.
#
#   benchmarks/gpu/run.sh [--bundle FILE.tar.xz|DIR] [--mode auto|gpu|cpu] [--out DIR] [--pack DIR]
#                         [--budget SECONDS] [--work DIR] [--steps a,b,...] [--python PY] [--hide-jdk]
#
#   --bundle    the tar.xz of make-bundle.sh or its unpacked ntk4j-gpu/ folder (default: the folder this
#               script sits in when that is an unpacked bundle, else target/gpu-bundle/ntk4j-gpu.tar.xz)
#   --mode      gpu: every step at full size on the first CUDA device; cpu: the same steps at tiny sizes
#               with --device cpu (CI); auto (default): gpu when python's torch sees a CUDA device
#   --out       the results folder (default ./gpu-results); --pack DIR also writes table.md, results.json
#               and results.tar.gz (the whole folder) into DIR (the device tool's $OUT takes 8 files)
#   --budget    seconds for all steps (default 540 in gpu mode, 1800 in cpu mode); each step has its own
#               cap, is given at most what is left, and is recorded as skipped when too little is left
#   --work      scratch folder for the unpacked bundle, native build and kernels (default a fresh /tmp dir)
#   --steps     run only these steps (names as in the table, run in its order; default all)
#   --python    the python with torch (default: python3 if it imports torch, else /usr/bin/python3)
#   --hide-jdk  put stubs for java, javac, jar and jlink first on PATH, proving the bundle needs no JDK
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bundle=""
mode=auto
out="$PWD/gpu-results"
pack=""
budget=""
work=""
steps=""
py=""
hide_jdk=0
die() { echo "run.sh: error: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle="$2"; shift 2 ;;
    --mode) mode="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --pack) pack="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --python) py="$2"; shift 2 ;;
    --hide-jdk) hide_jdk=1; shift ;;
    -h|--help) sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
case "$mode" in auto|gpu|cpu) ;; *) die "--mode must be auto, gpu or cpu (got $mode)" ;; esac
[ -z "$budget" ] || [[ "$budget" =~ ^[0-9]+$ ]] || die "--budget must be a number of seconds (got $budget)"
t0=$(date +%s)

# ---- the bundle
if [ -z "$bundle" ]; then
  if [ -x "$here/../runtime/bin/java" ]; then bundle="$(cd "$here/.." && pwd)"
  else bundle="$here/../../target/gpu-bundle/ntk4j-gpu.tar.xz"; fi
fi
[ -e "$bundle" ] || die "no bundle at $bundle: build it with benchmarks/gpu/make-bundle.sh (on a machine with a JDK)"
[ -n "$work" ] || work="$(mktemp -d "${TMPDIR:-/tmp}/ntk4j-gpu.XXXXXX")"
mkdir -p "$work" || die "cannot create --work $work"
work="$(cd "$work" && pwd)"
if [ -d "$bundle" ]; then
  B="$(cd "$bundle" && pwd)"
else
  echo "run.sh: unpacking $bundle into $work" >&2
  if command -v xz >/dev/null 2>&1; then
    xz -dc "$bundle" | tar -xf - -C "$work" || die "cannot unpack $bundle"
  else
    python3 -c 'import lzma,sys,tarfile; tarfile.open(fileobj=lzma.open(sys.argv[1])).extractall(sys.argv[2])' "$bundle" "$work" \
      || die "cannot unpack $bundle"
  fi
  B="$work/ntk4j-gpu"
fi
[ -x "$B/runtime/bin/java" ] || die "$B is not an unpacked GPU bundle (no runtime/bin/java)"
JAVA="$B/runtime/bin/java"
S="$B/scripts"

# ---- python with torch: the peer, the torch probe, the tf32 comparison and the native build's torch
if [ -z "$py" ]; then
  if python3 -c 'import torch' >/dev/null 2>&1; then py="$(command -v python3)"; else py=/usr/bin/python3; fi
fi
torch_info="$("$py" -c 'import torch, sys
print(torch.__version__, torch.version.cuda, int(torch.compiled_with_cxx11_abi()), int(torch.cuda.is_available()), torch.__path__[0])' 2>/dev/null)" \
  || die "$py cannot import torch (pass --python PY)"
read -r torch_version torch_cuda torch_abi torch_sees_gpu torch_dir <<<"$torch_info"
if [ "$mode" = auto ]; then
  if [ "$torch_sees_gpu" = 1 ]; then mode=gpu; else mode=cpu; fi
fi
[ "$mode" = gpu ] && [ "$torch_sees_gpu" != 1 ] && die "--mode gpu, but $py's torch $torch_version sees no CUDA device"
[ -n "$budget" ] || { [ "$mode" = gpu ] && budget=540 || budget=1800; }
deadline=$(( t0 + budget ))
flavor=cpu; [ "$torch_cuda" != None ] && flavor="cu${torch_cuda//./}"
cores=$(nproc)

mkdir -p "$out/logs" "$out/sidecars" || die "cannot create --out $out"
out="$(cd "$out" && pwd)"
: > "$out/steps.jsonl"

# ---- the environment every Java step runs in: nothing from a JDK, the bundle's AWT libraries and fonts
cat > "$work/fonts.conf" <<EOF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>$B/fonts</dir><cachedir>$work/fontconfig-cache</cachedir></fontconfig>
EOF
if [ "$hide_jdk" = 1 ]; then
  mkdir -p "$work/no-jdk"
  for t in java javac jar jlink jdeps; do
    printf '#!/bin/sh\necho "%s: hidden by run.sh --hide-jdk: the bundle must not need a JDK" >&2\nexit 127\n' "$t" > "$work/no-jdk/$t"
    chmod +x "$work/no-jdk/$t"
  done
  export PATH="$work/no-jdk:$PATH"
  unset JAVA_HOME JDK_HOME
fi
export FONTCONFIG_FILE="$work/fonts.conf"
export NTK4J_NATIVE_ENV="$work/native.properties"   # the native build's record: Main and the engine provider apply it
export DJL_CACHE_DIR="$work/djl-cache"
unset PYTORCH_LIBRARY_PATH PYTORCH_VERSION PYTORCH_FLAVOR ENGINE_CACHE_DIR NTK4J_NATIVE
cp_main="$B/lib/*"
cp_bench="$B/bench/*:$B/lib/*"
# caps are for the GPU's minutes; in cpu mode (CI, a 2-core machine that may be busy) each is 4 times longer
if [ "$mode" = gpu ]; then dev=gpu; cap_scale=1; else dev=cpu; cap_scale=4; fi
jopts=(-Djava.awt.headless=true -Dai.djl.offline=true -Dpicocli.ansi=false -Dai.djl.pytorch.num_interop_threads=1)
# ntk4j [--vm JVM-OPTIONS... --] ARGS: the CLI on the bundle's runtime (a script, so that timeout can run it)
cat > "$work/ntk4j" <<EOF
#!/usr/bin/env bash
vm=()
if [ "\${1:-}" = --vm ]; then shift; while [ "\$1" != -- ]; do vm+=("\$1"); shift; done; shift; fi
export LD_LIBRARY_PATH="$B/awt\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$JAVA" "\${vm[@]}" ${jopts[*]} -cp "$cp_main" org.ntk4j.cli.Main "\$@"
EOF
chmod +x "$work/ntk4j"
ntk4j="$work/ntk4j"

# ---- steps: each under its own timeout, cut to what is left of the budget
want() { [ -z "$steps" ] || [[ ",$steps," == *",$1,"* ]]; }
record() { # name status rc wall cap what [sidecar]
  python3 - "$out/steps.jsonl" "$@" <<'EOF'
import json, sys
f, name, status, rc, wall, cap, what = sys.argv[1:8]
side = sys.argv[8] if len(sys.argv) > 8 else ""
with open(f, "a") as o:
    o.write(json.dumps({"step": name, "status": status, "rc": int(rc), "wall_s": float(wall), "cap_s": int(cap),
                        "what": what, "sidecar": side}) + "\n")
EOF
}
run_step() { # name cap_s what -- command...
  local name="$1" cap="$2" what="$3"; shift 4
  want "$name" || return 0
  local now left allowed
  cap=$(( cap * cap_scale ))
  now=$(date +%s); left=$(( deadline - now - 5 ))
  allowed=$(( cap < left ? cap : left ))
  if [ "$allowed" -lt 10 ]; then
    echo "run.sh: $name: skipped (budget spent: $(( now - t0 )) of $budget s)" >&2
    record "$name" skipped -1 0 "$cap" "$what"
    return 0
  fi
  echo "run.sh: $name: $what (cap ${allowed} s)" >&2
  local s e rc status
  rm -f "$work/k-$name.json"
  s=$(date +%s.%N)
  timeout --kill-after=10 "$allowed" "$@" > "$out/logs/$name.log" 2>&1
  rc=$?
  e=$(date +%s.%N)
  if [ $rc -eq 0 ]; then status=ok; elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then status="timeout ${allowed}s"; else status="failed"; fi
  local wall; wall=$(python3 -c "print(round($e - $s, 2))")
  local side=""
  [ -f "$work/k-$name.json" ] && { cp "$work/k-$name.json" "$out/sidecars/$name.json"; side="sidecars/$name.json"; }
  rm -rf "$work/k-$name.npz"
  record "$name" "$status" "$rc" "$wall" "$allowed" "$what" "$side"
  echo "run.sh: $name: $status in $wall s" >&2
  [ $rc -eq 0 ] || tail -n 5 "$out/logs/$name.log" | sed 's/^/    /' >&2
  return 0
}
kernel_step() { # name cap what heap memory model dataset datadir n [extra JVM options...]
  local name="$1" cap="$2" what="$3" heap="$4" mem="$5" model="$6" ds="$7" dd="$8" n="$9"; shift 9
  run_step "$name" "$cap" "$what" -- "$ntk4j" --vm "-Xmx$heap" "$@" -- kernel --model "$model" --dataset "$ds" \
    --data-dir "$dd" --n "$n" --mode trace --device "$dev" --threads "$cores" --memory "$mem" \
    --out "$work/k-$name.npz" --force
}

{
  echo "mode=$mode budget_s=$budget cores=$cores"
  echo "python=$py torch=$torch_version cuda=$torch_cuda cxx11_abi=$torch_abi sees_gpu=$torch_sees_gpu flavor=$flavor dir=$torch_dir"
  echo "java=$("$JAVA" -version 2>&1 | head -1)"
  echo "g++=$(g++ --version 2>/dev/null | head -1)"
  echo "uname=$(uname -srm)"
  echo "loadavg=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu=/'
  sed -n '2p' "$B/BUNDLE.txt" 2>/dev/null | sed 's/^/bundle=/'
} > "$out/env.txt"
cat "$out/env.txt" >&2

# data: MNIST as carried; CIFAR-10 small (first images) and large (augmented to 50,000 in gpu mode)
mkdir -p "$work/data/mnist" "$work/data-cifar-small/cifar10" "$work/data-cifar-large/cifar10"
ln -sf "$B"/data/mnist/* "$work/data/mnist/"
if [ "$mode" = gpu ]; then
  mlp_small=10000; mlp_large=30000; rn_small=8192; rn_large=50000; tf32_n=128; qs_epochs=5
  ln -sf "$B/data/cifar10/data_batch.bin" "$work/data-cifar-small/cifar10/data_batch.bin"
  heap_s=24g; heap_l=96g; mem_s=16g; mem_l=64g
else
  mlp_small=256; mlp_large=512; rn_small=64; rn_large=128; tf32_n=16; qs_epochs=1
  head -c $(( 64 * 3073 )) "$B/data/cifar10/data_batch.bin" > "$work/data-cifar-small/cifar10/data_batch.bin"
  heap_s=2g; heap_l=3g; mem_s=1g; mem_l=2g
fi
cifar_n=$(( $(stat -L -c %s "$work/data-cifar-small/cifar10/data_batch.bin") / 3073 ))
[ "$rn_small" -le "$cifar_n" ] || rn_small=$cifar_n
if want resnet-large-default || want resnet-large-replicated || { want train && [ "$mode" = gpu ]; }; then
  python3 "$S/augment_cifar.py" "$work/data-cifar-small/cifar10/data_batch.bin" "$rn_large" \
    "$work/data-cifar-large/cifar10/data_batch.bin" >&2 || die "cannot build the $rn_large-image CIFAR-10 set"
fi

# the native build finds torch through python3 on PATH: the chosen python's folder first (after the JDK stubs)
native_path="$(dirname "$py"):$PATH"
[ "$hide_jdk" = 1 ] && native_path="$work/no-jdk:$native_path"
# 1. DJL's JNI against this torch (CUDA headers and libcudart recorded), and what the engine then sees
run_step native-build 300 "ntk4j native build against $py's torch $torch_version ($flavor)" -- \
  env PATH="$native_path" "$ntk4j" native build --torch auto --djl-source "$B/djl-src" \
    --work-dir "$work/native" --djl-cache "$work/djl-cache" --env-file "$work/native.properties" --jobs "$cores"
run_step native-status 60 "ntk4j native status (the recorded build, GPUs seen by PyTorch and by DJL, TF32)" -- \
  "$ntk4j" native status
# 2. the quickstart on the device (training, probes, PNG plots through the bundle's AWT libraries and fonts)
run_step quickstart 120 "ntk4j quickstart --device $dev --epochs $qs_epochs" -- \
  "$ntk4j" --vm -Xmx8g -- quickstart --device "$dev" --epochs "$qs_epochs" --threads "$cores" --out "$work/quickstart" --force
# 2b. training against the plain PyTorch loop on the same device (benchmarks/peer/train_compare.py: the same
#     data, batch order, initial weights and hyper-parameters; issue 23). Data: the carried MNIST (train and
#     test) and CIFAR-10 (the 50,000-image set in gpu mode, for resnet20-full; the carried test images)
mkdir -p "$work/data-train/mnist" "$work/data-train/cifar10"
ln -sf "$B"/data/mnist/* "$work/data-train/mnist/"
ln -sf "$B/data/cifar10/test_batch.bin" "$work/data-train/cifar10/test_batch.bin"
if [ "$mode" = gpu ]; then
  train_cases=mlp,resnet20,resnet20-full; train_epochs=2; train_dev=cuda
  ln -sf "$work/data-cifar-large/cifar10/data_batch.bin" "$work/data-train/cifar10/data_batch.bin"
else
  train_cases=mlp; train_epochs=1; train_dev=cpu
fi
run_step train 200 "ntk4j train vs the plain PyTorch loop on $train_dev: $train_cases, $train_epochs epochs, batch 128" -- \
  env OPENBLAS_CORETYPE=SkylakeX OMP_WAIT_POLICY=PASSIVE "$py" "$S/train_compare.py" --cases "$train_cases" \
    --rounds 1 --epochs "$train_epochs" --threads "$cores" --device "$train_dev" --data-dir "$work/data-train" \
    --java "$JAVA" --classpath "$cp_main" --bench-dir "$work/train-bench" --json "$out/train.json" \
    --ntk4j "bundle=$ntk4j --vm -Xmx16g --"
# 3. TF32: a float32 ResNet-20 kernel on the device with --tf32 off and on against the CPU's
run_step tf32 180 "ResNet-20 trace kernel, $tf32_n CIFAR-10 images, float32: $dev --tf32 off / on vs cpu" -- \
  bash -c "set -e
    for v in cpu:off $dev:off $dev:on; do d=\${v%%:*}; t=\${v##*:}
      '$ntk4j' --vm -Xmx8g -- kernel --model resnet20 --dataset cifar10 --data-dir '$work/data-cifar-small' --n $tf32_n \
        --mode trace --device \$d --tf32 \$t --threads $cores --out '$work/tf32-'\$d-\$t.npz --force
    done
    '$py' - '$work/tf32-cpu-off.npz' '$work/tf32-$dev-off.npz' '$work/tf32-$dev-on.npz' > '$out/tf32.json' <<'EOF'
import json, sys, numpy as np
ref = np.load(sys.argv[1])['ntk'].astype(np.float64)
res = {'n': int(ref.shape[0])}
for name, f in (('off', sys.argv[2]), ('on', sys.argv[3])):
    k = np.load(f)['ntk'].astype(np.float64)
    res['max_rel_diff_tf32_' + name] = float(np.abs(k - ref).max() / np.abs(ref).max())
print(json.dumps(res))
EOF
    cat '$out/tf32.json'; cp '$work/tf32-$dev-off.json' '$out/sidecars/tf32-off.json'; cp '$work/tf32-$dev-on.json' '$out/sidecars/tf32-on.json'"
# 4. the JMH cases and the PyTorch peer on the same device
jmh() { # name cap what class [extra JMH options...]
  local name="$1" cap="$2" what="$3" cls="$4"; shift 4
  run_step "$name" "$cap" "$what" -- env LD_LIBRARY_PATH="$B/awt" "$JAVA" -Xmx2g -cp "$cp_bench" org.openjdk.jmh.Main "$cls" \
    -p device="$dev" -f 1 -foe true -rf json -rff "$out/$name.json" \
    -jvmArgsAppend "-Dai.djl.offline=true -Dai.djl.pytorch.num_threads=$cores -Dai.djl.pytorch.num_interop_threads=1 -Xmx${heap_s} -Djava.awt.headless=true" \
    "$@"
}
if [ "$mode" = gpu ]; then
  jmh jmh-ntk 150 "JMH NtkBenchmark, all cases, -p device=gpu" 'org\.ntk4j\.bench\.NtkBenchmark\.' -wi 1 -i 3 -w 1s -r 1s
  jmh jmh-contraction 60 "JMH ContractionBenchmark, -p device=gpu" 'org\.ntk4j\.bench\.ContractionBenchmark\.' -wi 2 -i 5 -w 1s -r 1s
  run_step peer 150 "benchmarks/peer/ntk_peer.py on CUDA, all cases" -- \
    bash -c "'$py' '$S/ntk_peer.py' --devices cuda --threads $cores > '$out/peer.json'"
  harness_cases=a-fcn2048-full,b-mlp512-trace,b-mlp512-full,b-mlp512-full-layers,c-resnet20-trace,d-mlp3-trace-1000
  harness_reps="3 10"
else
  jmh jmh-ntk 120 "JMH NtkBenchmark b-mlp512-trace structured, -p device=cpu" 'org\.ntk4j\.bench\.NtkBenchmark\.' \
    -p useCase=b-mlp512-trace -p method=structured -wi 0 -i 1 -r 1s
  jmh jmh-contraction 60 "JMH ContractionBenchmark denseContraction, -p device=cpu"   'org\.ntk4j\.bench\.ContractionBenchmark\.denseContraction' -wi 0 -i 1 -r 1s
  run_step peer 120 "benchmarks/peer/ntk_peer.py on the CPU, b-mlp512-trace" -- \
    bash -c "OPENBLAS_CORETYPE=SkylakeX OMP_WAIT_POLICY=PASSIVE '$py' '$S/ntk_peer.py' --devices cpu --cases b-mlp512-trace --threads 1 --warmup 1 --reps 2 > '$out/peer.json'"
  harness_cases=b-mlp512-trace; harness_reps="1 2"
fi
# the peer's cases timed as the peer times them (benchmarks/peer/KernelHarness.java: the total kernel, warm runs in
# one JVM, phases with the device synchronised), on the engine's default device (the GPU in gpu mode)
run_step harness 120 "benchmarks/peer/KernelHarness.java on $dev: $harness_cases" -- \
  bash -c "'$JAVA' -Xmx${heap_s} ${jopts[*]} -Dai.djl.pytorch.num_threads=$cores -cp '$cp_main' '$S/KernelHarness.java' \
    $harness_cases $harness_reps > '$out/harness.jsonl'"
# 5. the traced MLP 784-512x3-10 on MNIST, and ResNet-20 on CIFAR-10 (default and replicated backward)
kernel_step mlp-small 90 "MLP 784-512x3-10 trace kernel, $mlp_small MNIST images" "$heap_s" "$mem_s" mlp3-relu mnist "$work/data" "$mlp_small"
kernel_step mlp-large 150 "MLP 784-512x3-10 trace kernel, $mlp_large MNIST images" "$heap_l" "$mem_l" mlp3-relu mnist "$work/data" "$mlp_large"
kernel_step resnet-small-default 150 "ResNet-20 trace kernel, $rn_small CIFAR-10 images (real)" "$heap_s" "$mem_s" resnet20 cifar10 "$work/data-cifar-small" "$rn_small"
kernel_step resnet-small-replicated 150 "same, -Dntk4j.backward=replicated" "$heap_s" "$mem_s" resnet20 cifar10 "$work/data-cifar-small" "$rn_small" -Dntk4j.backward=replicated
if [ "$mode" = gpu ]; then
  jmh jmh-conv 180 "JMH ConvNtkBenchmark, all cases, -p device=gpu" 'org\.ntk4j\.bench\.ConvNtkBenchmark\.' -wi 1 -i 2
else
  jmh jmh-conv 120 "JMH ConvNtkBenchmark resnet20 structured, -p device=cpu" 'org\.ntk4j\.bench\.ConvNtkBenchmark\.' -p model=resnet20 -p method=structured -wi 0 -i 1
fi
kernel_step resnet-large-default 480 "ResNet-20 trace kernel, $rn_large CIFAR-10 images ($cifar_n real + augmented)" "$heap_l" "$mem_l" resnet20 cifar10 "$work/data-cifar-large" "$rn_large"
kernel_step resnet-large-replicated 480 "same, -Dntk4j.backward=replicated" "$heap_l" "$mem_l" resnet20 cifar10 "$work/data-cifar-large" "$rn_large" -Dntk4j.backward=replicated

# ---- the table
total=$(( $(date +%s) - t0 ))
python3 "$S/summarize.py" "$out" "$total" > "$out/table.md" || echo "run.sh: summarize.py failed" >&2
cat "$out/table.md"
if [ -n "$pack" ]; then
  mkdir -p "$pack"
  cp "$out/table.md" "$pack/table.md"
  cp "$out/results.json" "$pack/results.json" 2>/dev/null
  tar -C "$(dirname "$out")" -czf "$pack/results.tar.gz" "$(basename "$out")"
fi
echo "run.sh: $mode mode, $total s; results in $out" >&2
python3 -c "import json,sys; sys.exit(0 if all(json.loads(l)['status'] in ('ok',) for l in open(sys.argv[1])) else 1)" "$out/steps.jsonl"
