# Shared by the benchmark scripts (sourced, not run): a scratch folder, a clock, the launcher's environment.
#
# scratch_dir: $OUT if set (created), else a temporary folder removed on exit; sets $out to its path.
# now: seconds since the epoch with nanoseconds.
# prebuild ROOT: builds ROOT's jar if its sources changed, outside the timings.
scratch_dir() {
  out="${OUT:-}"
  if [ -z "$out" ]; then
    out="$(mktemp -d)"
    # shellcheck disable=SC2064
    trap "rm -rf '$out'" EXIT
  fi
  mkdir -p "$out"
}
now() { date +%s.%N; }
prebuild() { "$1/ntk4j" --version > /dev/null 2>&1 || true; }

# launcher_env DIR [THREADS] [COMMAND]: the environment DIR/ntk4j gives the JVM for COMMAND (e.g. train; default none,
# as for kernel) on THREADS threads (default 2), one NAME=VALUE per line (for `env`), for a harness that runs a Java
# file outside the launcher (benchmarks/peer/profile_step.sh): OpenMP workers that sleep between regions (after a
# brief spin when every thread has a free core), glibc's allocator settings and huge pages, on AMD MKL's shim in
# DIR/target/mkl-amd (built by `DIR/ntk4j --help`), and for train the JIT policy's JVM flags (JDK_JAVA_OPTIONS, which
# the java launcher reads; it notes so on stderr). Values already in the environment win, as in the launcher. The JVM
# also needs -XX:+UseTransparentHugePages. A checkout whose launcher cannot print its environment (NTK4J_PRINT_ENV,
# before 2026-11-27) gets the settings it had then.
launcher_env() {
  local printed
  # shellcheck disable=SC2086 # COMMAND is one word or none
  printed="$(NTK4J_PRINT_ENV=1 "$1/ntk4j" ${3:-} --threads "${2:-2}" --version 2> /dev/null | grep -E '^[A-Z_]+=' || true)"
  if [ -n "$printed" ]; then
    printf '%s\n' "$printed"
    return
  fi
  printf '%s\n' OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}" MALLOC_TOP_PAD_="${MALLOC_TOP_PAD_:-134217728}" \
    MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-33554432}" \
    MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-268435456}" GLIBC_TUNABLES=glibc.malloc.hugetlb=1
  if [ "${NTK4J_MKL_AMD:-on}" = on ] && [ -f "$1/target/mkl-amd/libntk4j_mkl_amd.so" ]; then
    printf '%s\n' LD_PRELOAD="$1/target/mkl-amd/libntk4j_mkl_amd.so"
  fi
}
