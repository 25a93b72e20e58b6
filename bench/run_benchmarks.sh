#!/usr/bin/env bash
# Builds chorus in Release, runs every Google Benchmark program, then measures the end-to-end wall time and
# peak memory of the `chorus collective` CLI on the large ring cases, and prints a small table.
#
#   bench/run_benchmarks.sh [BUILD_DIR]      (default BUILD_DIR: <repo>/build-bench)
#   CHORUS_REFERENCE_DIR overrides the reference inputs (default <repo>/tests/data/reference).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$repo/build-bench}"
reference="${CHORUS_REFERENCE_DIR:-$repo/tests/data/reference}"
export CHORUS_REFERENCE_DIR="$reference"
jobs="${CHORUS_BUILD_JOBS:-2}"

ensure_gnu_time() {
  if [[ -x /usr/bin/time ]]; then
    return
  fi
  echo "installing GNU time (/usr/bin/time is missing)" >&2
  apt-get install -y time >/dev/null || { apt-get update >/dev/null && apt-get install -y time >/dev/null; }
}

build_release() {
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j"$jobs" --target chorus collective_bench
}

run_benchmark_programs() {
  local program
  for source in "$repo"/bench/*.cpp; do
    program="$build/$(basename "$source" .cpp)"
    if [[ -x "$program" ]]; then
      echo "== $(basename "$program")"
      "$program" --benchmark_counters_tabular=true
    fi
  done
}

# measure LABEL ARGS...: runs `chorus ARGS...` under /usr/bin/time; prints one table row.
measure() {
  local label="$1"
  shift
  local out err time_line simulated
  out="$(mktemp)"
  err="$(mktemp)"
  if ! /usr/bin/time -f '%e s %M KiB' -o "$err" "$build/chorus" "$@" >"$out"; then
    echo "chorus failed for $label:" >&2
    cat "$out" "$err" >&2
  fi
  time_line="$(tail -n 1 "$err")"
  simulated="$(grep -o '"time_ns":[0-9.e+-]*' "$out" | cut -d: -f2 || true)"
  printf '%-34s %14s %16s %16s\n' "$label" "${time_line% s *} s" "${time_line#* s }" "${simulated:-?}"
  rm -f "$out" "$err"
}

measure_cli() {
  echo
  echo "== end-to-end CLI (wall time and peak RSS from /usr/bin/time)"
  printf '%-34s %14s %16s %16s\n' "case" "wall" "peak memory" "simulated ns"
  measure "ASTRA-sim Ring_4096 AR 1MiB" collective \
    --network "$reference/astra-sim-inputs/network/Ring_4096.yml" \
    --system "$reference/astra-sim-inputs/system/ring_1d.json" \
    --collective all_reduce --size 1MiB --json
  measure "native ring:65536 AR 1MiB" collective \
    --topology ring:65536 --bandwidth 50GB/s --latency 500ns \
    --collective all_reduce --size 1MiB --splits 4 --json
}

ensure_gnu_time
build_release
run_benchmark_programs
measure_cli
