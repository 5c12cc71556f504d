#!/usr/bin/env bash
# Lapack.symmetric (dsyevd from libtorch's MKL) on one thread against THREADS threads, per
# matrix order, in the environment the launcher gives a command (sleeping OpenMP workers, MKL's shim on AMD): the
# measurement behind Lapack.SINGLE_THREAD_BELOW. Prints a markdown table (medians of REPS interleaved calls each way).
#
#   benchmarks/metrics/lapack_threads.sh [ORDERS]     (default 64,128,256,384,512,768,1024,2048)
#
# Environment: REPS (default 9), THREADS (default 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
orders="${1:-64,128,256,384,512,768,1024,2048}"
threads="${THREADS:-2}"
./ntk4j --help > /dev/null # builds the jar and, on AMD, the MKL shim
# shellcheck source=benchmarks/lib.sh
. benchmarks/lib.sh
mapfile -t env_vars < <(launcher_env "$PWD" "$threads")
echo "load: $(uptime | sed 's/.*load average: //'); $(nproc) cores; ${env_vars[*]}"
echo
env "${env_vars[@]}" java -XX:+UseTransparentHugePages -Dai.djl.offline=true -Dai.djl.pytorch.num_threads="$threads" \
  -cp "target/ntk4j.jar:$(cat target/classpath.txt)" benchmarks/metrics/LapackThreads.java "$orders" "${REPS:-9}" "$threads"
