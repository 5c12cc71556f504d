#!/usr/bin/env bash
# Builds the GPU check's carry on a CPU machine (Java 17 JDK, Maven, python3, xz): one tar.xz holding
# everything benchmarks/gpu/run.sh needs on a GPU machine that has PyTorch 2.x, g++ and no JDK, no
# Maven and no network. See benchmarks/gpu/README.md.
#
#   benchmarks/gpu/make-bundle.sh [--out FILE] [--data-dir DIR] [--djl-source DIR]
#                                 [--mnist N] [--cifar N] [--max-mib M] [--keep DIR]
#
# Contents (top folder ntk4j-gpu/): runtime/ (a jlink'd Java 17 with jdk.compiler, jdk.zipfs,
# jdk.management, java.net.http and the JNI headers), lib/ (ntk4j.jar and its runtime jars without
# pytorch-native-cpu, re-packed uncompressed so that xz compresses them across files), bench/ (the JMH
# benchmarks compiled here, and JMH), awt/ + fonts/ (the native libraries Java's AWT needs to draw
# text in PNGs, and DejaVu fonts, copied from this machine), data/ (the first N MNIST training images
# and 2,000 test images; the first N CIFAR-10 training images and 1,200 test images as CIFAR binary
# files), djl-src/ (DJL v0.35.0's JNI sources), scripts/ (run.sh, summarize.py, augment_cifar.py,
# ntk_peer.py, peer_blas.py, KernelHarness.java, and the training peer train_peer.py, train_compare.py, TrainBench.java) and BUNDLE.txt (what, from where,
# SHA-256 of the data). The bundle must fit the device tool's 64 MiB together with the repository's
# tracked files; the default --max-mib is that limit less their size less 1 MiB.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/target/gpu-bundle/ntk4j-gpu.tar.xz"
data_dir="${NTK4J_DATA:-$HOME/.ntk4j/data}"
djl_src=""
mnist_n=30000
cifar_n=8192
mnist_test_n=2000     # the training step's test sets (ntk4j train evaluates one each epoch)
cifar_test_n=1200     # the first 1,200 CIFAR-10 test images hold at least 100 of each class (resnet20 case)
max_mib=""
keep=""
mvn_cmd=(mvn -B -q)
[ -n "${MVN_OFFLINE:-}" ] && mvn_cmd+=(-o)

usage() { sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "make-bundle: error: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --data-dir) data_dir="$2"; shift 2 ;;
    --djl-source) djl_src="$2"; shift 2 ;;
    --mnist) mnist_n="$2"; shift 2 ;;
    --cifar) cifar_n="$2"; shift 2 ;;
    --max-mib) max_mib="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
[[ "$mnist_n" =~ ^[0-9]+$ ]] && [ "$mnist_n" -ge 1 ] && [ "$mnist_n" -le 60000 ] || die "--mnist must be 1..60000 (got $mnist_n)"
[[ "$cifar_n" =~ ^[0-9]+$ ]] && [ "$cifar_n" -ge 1 ] && [ "$cifar_n" -le 50000 ] || die "--cifar must be 1..50000 (got $cifar_n)"
for tool in java jlink javac jar python3 xz tar ldd; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed (a Java 17 JDK, python3, xz and tar are needed)"
done
jv="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
[ "$jv" = 17 ] || die "the JDK on PATH is Java $jv; the bundle's runtime must be Java 17 (the project's release)"
if [ -z "$djl_src" ]; then
  for d in "${NTK4J_DJL_SOURCE:-}" "$root/../shared/vendor/djl-v0.35.0" "$HOME/.ntk4j/native/djl-v0.35.0"; do
    if [ -n "$d" ] && [ -f "$d/engines/pytorch/pytorch-engine/src/main/java/ai/djl/pytorch/jni/PyTorchLibrary.java" ]; then
      djl_src="$d"; break
    fi
  done
  [ -n "$djl_src" ] || die "no DJL v0.35.0 sources found: pass --djl-source DIR (a checkout of the v0.35.0 tag)"
fi
[ -d "$djl_src/engines/pytorch/pytorch-native/src/main/native" ] || die "--djl-source $djl_src is not DJL's source tree"
if [ -z "$max_mib" ]; then
  tracked_kib=$(cd "$root" && git ls-files -z 2>/dev/null | xargs -0 du -k --apparent-size 2>/dev/null | awk '{s+=$1} END {print s+0}')
  max_mib=$(( 64 - (tracked_kib + 1023) / 1024 - 1 ))
fi
t_start=$(date +%s)
step() { echo "make-bundle: $* ($(( $(date +%s) - t_start )) s)" >&2; }

# 1. the core jar and its runtime classpath (built when missing or older than the sources, as ./ntk4j does)
jar_file="$root/target/ntk4j.jar"
if [ ! -f "$jar_file" ] || [ ! -f "$root/target/classpath.txt" ] || [ "$root/pom.xml" -nt "$jar_file" ] \
   || [ -n "$(find "$root/src/main" -newer "$jar_file" -type f -print -quit)" ]; then
  step "building the core (mvn package -DskipTests)"
  (cd "$root" && "${mvn_cmd[@]}" -DskipTests package)
fi

stage="$(mktemp -d "${TMPDIR:-/tmp}/ntk4j-bundle.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
b="$stage/ntk4j-gpu"
mkdir -p "$b"/{lib,bench,awt,fonts,data/mnist,data/cifar10,djl-src,scripts}

# 2. jars without the CPU natives, re-packed uncompressed (xz then compresses the classes across jars: 8 MB instead of 16)
step "jars"
python3 - "$b/lib" "$jar_file" $(tr ':' ' ' < "$root/target/classpath.txt") <<'EOF'
import os, sys, zipfile
dest, jars = sys.argv[1], sys.argv[2:]
for j in jars:
    if "pytorch-native-cpu" in os.path.basename(j):
        continue
    with zipfile.ZipFile(j) as zi, zipfile.ZipFile(os.path.join(dest, os.path.basename(j)), "w", zipfile.ZIP_STORED) as zo:
        for info in zi.infolist():
            data = zi.read(info)
            info.compress_type = zipfile.ZIP_STORED
            zo.writestr(info, data)
EOF
compgen -G "$b/lib/*pytorch-native-cpu*" > /dev/null && die "the CPU natives jar slipped into the bundle"

# 3. JMH and the benchmarks, compiled here against the same jars (no mvn install needed)
step "JMH benchmarks"
for a in org.openjdk.jmh:jmh-core:1.37 org.openjdk.jmh:jmh-generator-annprocess:1.37 \
         net.sf.jopt-simple:jopt-simple:5.0.4 org.apache.commons:commons-math3:3.6.1; do
  (cd "$root" && "${mvn_cmd[@]}" -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
      -Dartifact="$a" -DoutputDirectory="$stage/jmh" -Dmdep.overWriteReleases=true) > "$stage/mvn.log" 2>&1 \
    || { cat "$stage/mvn.log" >&2; die "cannot get $a from Maven"; }
done
mkdir -p "$stage/bench-classes"
cp_all="$(ls "$b"/lib/*.jar | paste -sd:)"
javac -nowarn -encoding UTF-8 --release 17 -d "$stage/bench-classes" \
  -cp "$cp_all:$stage/jmh/jmh-core-1.37.jar" \
  -processorpath "$stage/jmh/jmh-generator-annprocess-1.37.jar:$stage/jmh/jmh-core-1.37.jar" \
  $(find "$root/benchmarks/src/main/java" -name '*.java')
[ -f "$stage/bench-classes/META-INF/BenchmarkList" ] || die "the JMH annotation processor wrote no BenchmarkList"
jar cf0 "$b/bench/ntk4j-benchmarks.jar" -C "$stage/bench-classes" .
cp "$stage/jmh/jmh-core-1.37.jar" "$stage/jmh/jopt-simple-5.0.4.jar" "$stage/jmh/commons-math3-3.6.1.jar" "$b/bench/"

# 4. the Java runtime: jdeps' modules of the jars, plus what native build (javac -h), the shard code and JMH need
step "jlink"
modules=java.base,java.compiler,java.desktop,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml
modules+=,jdk.compiler,jdk.management,jdk.unsupported,jdk.zipfs
jlink --add-modules "$modules" --strip-debug --no-man-pages --output "$b/runtime"
rm -f "$b/runtime/lib/ct.sym"   # javac's tables for --release of older versions; javac -h of this release needs none
[ -f "$b/runtime/include/jni.h" ] || die "jlink kept no JNI headers"

# 5. AWT's native dependencies (fonts for PNG text), less the C and C++ runtimes every machine has
step "AWT libraries and fonts"
base_libs='^(linux-vdso|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|ld-linux|libstdc\+\+\.so|libgcc_s\.so|libz\.so|libjvm\.so|libjava\.so|libawt\.so|libjli\.so)'
fontconfig="$( { ldconfig -p 2>/dev/null || /sbin/ldconfig -p; } | awk '/libfontconfig\.so\.1 .*x86-64/ && !f {print $NF; f = 1}')" # no early exit: ldconfig would die of SIGPIPE
[ -n "$fontconfig" ] || die "libfontconfig.so.1 not found (apt-get install libfontconfig1): Java's AWT loads it to find fonts"
# Java links freetype, lcms2, jpeg, harfbuzz...; it dlopens libfontconfig.so.1 at run time
ldd "$b"/runtime/lib/libfontmanager.so "$b"/runtime/lib/libawt_headless.so "$b"/runtime/lib/liblcms.so \
    "$b"/runtime/lib/libjavajpeg.so "$b"/runtime/lib/libawt.so "$fontconfig" 2>/dev/null \
  | awk '/=> \//{print $1, $3}' | sort -u | grep -Ev "$base_libs" | while read -r name path; do
  cp -L "$path" "$b/awt/$name"
done
cp -L "$fontconfig" "$b/awt/libfontconfig.so.1"
# every library in awt/ must find its own dependencies in awt/ or among the C and C++ runtimes
outside="$(LD_LIBRARY_PATH="$b/awt" ldd "$b"/awt/*.so* "$b"/runtime/lib/libfontmanager.so 2>/dev/null \
  | awk '/=> /{print $1, $3}' | grep -Ev "$base_libs" | grep -v " $b/" | sort -u || true)"
[ -z "$outside" ] || die "AWT libraries depend on libraries outside the bundle: $outside"
compgen -G "$b/awt/libfreetype*" > /dev/null || die "libfreetype not found by ldd (apt-get install libfreetype6 libfontconfig1)"
fonts=$(ls /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf \
        /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf /usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf 2>/dev/null) \
  || die "DejaVu fonts missing (apt-get install fonts-dejavu-core)"
cp $fonts "$b/fonts/"

# 6. data: the first N MNIST training images (IDX, header count rewritten) and the first N CIFAR-10
#    training images as one CIFAR binary file (label byte + 3072 channel-first pixels per record)
step "data"
[ -f "$data_dir/mnist/train-images-idx3-ubyte" ] || [ -f "$data_dir/mnist/train-images-idx3-ubyte.gz" ] \
  || die "no MNIST in $data_dir/mnist: run './ntk4j data fetch mnist' (or pass --data-dir)"
python3 - "$data_dir/mnist" "$b/data/mnist" "$mnist_n" "$mnist_test_n" <<'EOF'
import gzip, os, struct, sys
src, dst = sys.argv[1], sys.argv[2]
def read(name):
    p = os.path.join(src, name)
    return gzip.open(p + ".gz").read() if not os.path.exists(p) else open(p, "rb").read()
for prefix, n in (("train", int(sys.argv[3])), ("t10k", int(sys.argv[4]))):
    img, lab = read(prefix + "-images-idx3-ubyte"), read(prefix + "-labels-idx1-ubyte")
    magic, count, rows, cols = struct.unpack(">IIII", img[:16])
    assert magic == 2051 and count >= n, (magic, count)
    open(os.path.join(dst, prefix + "-images-idx3-ubyte"), "wb").write(
        struct.pack(">IIII", magic, n, rows, cols) + img[16:16 + n * rows * cols])
    magic, count = struct.unpack(">II", lab[:8])
    assert magic == 2049 and count >= n, (magic, count)
    open(os.path.join(dst, prefix + "-labels-idx1-ubyte"), "wb").write(struct.pack(">II", magic, n) + lab[8:8 + n])
EOF
cifar_bin=""
for d in "$data_dir/cifar10/cifar-10-batches-bin" "$data_dir/cifar10"; do
  [ -f "$d/data_batch_1.bin" ] && { cifar_bin="$d"; break; }
done
if [ -n "$cifar_bin" ]; then
  # head stops reading early; under pipefail a piped cat would then fail with SIGPIPE (the size is checked below)
  head -c $(( cifar_n * 3073 )) < <(cat "$cifar_bin"/data_batch_{1,2,3,4,5}.bin) > "$b/data/cifar10/data_batch.bin"
  head -c $(( cifar_test_n * 3073 )) "$cifar_bin/test_batch.bin" > "$b/data/cifar10/test_batch.bin"
elif [ -f "$data_dir/cifar10/data_batch_1.png" ]; then
  java -cp "$jar_file:$(cat "$root/target/classpath.txt")" "$here/CifarSlice.java" "$data_dir/cifar10" "$cifar_n" "$b/data/cifar10/data_batch.bin"
  java -cp "$jar_file:$(cat "$root/target/classpath.txt")" "$here/CifarSlice.java" "$data_dir/cifar10" "$cifar_test_n" \
    "$b/data/cifar10/test_batch.bin" test
else
  die "no CIFAR-10 in $data_dir/cifar10: run './ntk4j data fetch cifar10' (or pass --data-dir)"
fi
[ "$(stat -c %s "$b/data/cifar10/data_batch.bin")" -eq $(( cifar_n * 3073 )) ] || die "CIFAR-10 slice has the wrong size"
[ "$(stat -c %s "$b/data/cifar10/test_batch.bin")" -eq $(( cifar_test_n * 3073 )) ] || die "CIFAR-10 test slice has the wrong size"

# 7. DJL's JNI sources (only the parts native build reads) and the scripts
step "DJL sources and scripts"
(cd "$djl_src" && tar cf - LICENSE engines/pytorch/pytorch-native api/src/main/native \
   engines/pytorch/pytorch-engine/src/main/java/ai/djl/pytorch/jni/PyTorchLibrary.java) | tar xf - -C "$b/djl-src"
cp "$here/run.sh" "$here/summarize.py" "$here/augment_cifar.py" "$root/benchmarks/peer/ntk_peer.py" "$root/benchmarks/peer/peer_blas.py" \
   "$root/benchmarks/peer/train_peer.py" "$root/benchmarks/peer/train_compare.py" "$root/benchmarks/peer/TrainBench.java" \
   "$root/benchmarks/peer/KernelHarness.java" \
   "$b/scripts/"
commit="$(cd "$root" && git rev-parse HEAD 2>/dev/null || echo unknown)"
dirty="$(cd "$root" && git status --porcelain 2>/dev/null | grep -v '^??' | head -1 || true)"
{
  echo "ntk4j GPU check bundle"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m) from commit $commit${dirty:+ (with uncommitted changes)}"
  echo "runtime: $(java -version 2>&1 | head -1), jlink modules $modules"
  echo "jars: $(ls "$b/lib" | wc -l) in lib/ (no pytorch-native-cpu), JMH 1.37 in bench/"
  echo "awt: $(ls "$b/awt" | paste -sd' ')"
  echo "fonts: $(ls "$b/fonts" | paste -sd' ')"
  echo "data/mnist: the first $mnist_n MNIST training images and labels, the first $mnist_test_n test images (IDX, from $data_dir/mnist)"
  echo "data/cifar10/data_batch.bin: the first $cifar_n CIFAR-10 training images in file order (CIFAR binary records, from $data_dir/cifar10)"
  echo "  run.sh builds the 50,000-image case from these by augmentation (scripts/augment_cifar.py)"
  echo "data/cifar10/test_batch.bin: the first $cifar_test_n CIFAR-10 test images (for the training step)"
  echo "djl-src: DJL v0.35.0 JNI sources from $djl_src (Apache-2.0, LICENSE inside)"
  echo "sha256:"
  (cd "$b" && sha256sum data/mnist/* data/cifar10/*)
} > "$b/BUNDLE.txt"

# 8. pack, and check the size against the device tool's limit
step "xz"
mkdir -p "$(dirname "$out")"
tmp_out="$out.tmp.$$"
tar -C "$stage" -cf - ntk4j-gpu | xz -T0 -6 > "$tmp_out"
mv "$tmp_out" "$out"
size=$(stat -c %s "$out")
mib=$(python3 -c "print(f'{$size/2**20:.1f}')")
[ -n "$keep" ] && { rm -rf "$keep"; mkdir -p "$keep"; cp -a "$b/." "$keep/"; }
echo "make-bundle: $out: $mib MiB (limit $max_mib MiB), unpacked $(du -sh "$b" | cut -f1), $(( $(date +%s) - t_start )) s" >&2
du -sk "$b"/* | sort -n | awk '{printf "  %6.1f MiB  %s\n", $1/1024, $2}' | sed "s#$b/##" >&2
if [ "$size" -gt $(( max_mib * 1024 * 1024 )) ]; then
  echo "make-bundle: error: the bundle is $mib MiB, over the $max_mib MiB limit (lower --cifar or --mnist)" >&2
  exit 1
fi
echo "$out"
