# Shared by the wall-time scripts (sourced, not run): a scratch folder and a clock.
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
