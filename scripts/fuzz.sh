#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, clang, ASan + UBSan) into build-fuzz/ and runs each for a fixed number
# of executions, one at a time; prints per harness: executions, wall time, findings (crash/leak/timeout/oom files).
# Usage: scripts/fuzz.sh [-runs=N] [harness ...]     (default: 1000000 runs, every fuzz/<harness>_fuzz.cpp)
# Environment: FUZZ_TIMEOUT (s per input, 10), FUZZ_RSS_MB (2048), FUZZ_MAX_TIME (s per harness, 0: no cap; the
#              harness stops at whichever comes first), FUZZ_NO_BUILD=1 (use build-fuzz/ as it is),
#              FUZZ_OUT (build-fuzz/fuzz-out: corpus/<harness>, findings/<harness>, logs/<harness>.log).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=1000000
harnesses=()
for arg in "$@"; do
  case "$arg" in
    -runs=*) runs=${arg#-runs=} ;;
    *) harnesses+=("$arg") ;;
  esac
done
if ((${#harnesses[@]} == 0)); then
  for source in fuzz/*_fuzz.cpp; do
    name=$(basename "$source" _fuzz.cpp)
    harnesses+=("$name")
  done
fi
timeout_s=${FUZZ_TIMEOUT:-10}
rss_mb=${FUZZ_RSS_MB:-2048}
max_time=${FUZZ_MAX_TIME:-0}
out=${FUZZ_OUT:-build-fuzz/fuzz-out}

if [[ ${FUZZ_NO_BUILD:-0} != 1 ]]; then
  if ! command -v clang++-14 >/dev/null; then
    echo "installing clang-14 and its libFuzzer runtime"
    SUDO=""
    if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang-14 libclang-rt-14-dev
  fi
  CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCHORUS_FUZZ=ON \
    -DCHORUS_BUILD_TESTS=OFF -DCHORUS_BUILD_BENCH=OFF -DCHORUS_WITH_MPI=OFF -DCHORUS_SIMGRID_CROSSCHECK=OFF >/dev/null
  cmake --build build-fuzz --target fuzz_harnesses --parallel "$(nproc)"
fi

# Copies the seeds a fuzz/<harness>.seeds file names (one glob per line, from the repository root; a "gzip:"
# prefix adds gzipped copies) into the harness's working corpus.
seed_corpus() {
  local harness=$1 corpus=$2 line pattern file
  mkdir -p "$corpus"
  [[ -f fuzz/$harness.seeds ]] || return 0
  while IFS= read -r line; do
    [[ -z $line || $line == \#* ]] && continue
    pattern=${line#gzip:}
    for file in $pattern; do
      [[ -f $file ]] || continue
      if [[ $line == gzip:* ]]; then
        gzip -c "$file" >"$corpus/$(basename "$file").gz"
      else
        cp "$file" "$corpus/"
      fi
    done
  done <"fuzz/$harness.seeds"
}

printf '%-20s %12s %10s %9s\n' harness executions wall_s findings
status=0
for harness in "${harnesses[@]}"; do
  binary=build-fuzz/fuzz/fuzz_$harness
  [[ -x $binary ]] || { echo "no harness $binary" >&2; exit 2; }
  corpus=$out/corpus/$harness
  findings=$out/findings/$harness
  log=$out/logs/$harness.log
  rm -rf "$findings"  # this run's findings only
  mkdir -p "$findings" "$(dirname "$log")"
  seed_corpus "$harness" "$corpus"
  start=$(date +%s.%N)
  set +e
  nice "$binary" -runs="$runs" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" -max_total_time="$max_time" -artifact_prefix="$findings/" \
    -print_final_stats=1 "$corpus" >"$log" 2>&1
  set -e
  wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  count=$(find "$findings" -type f | wc -l)
  printf '%-20s %12s %10.1f %9s\n' "$harness" "${executions:-?}" "$wall" "$count"
  if ((count > 0)); then
    status=1
    find "$findings" -type f | sed 's/^/    /'
  fi
done
exit $status
