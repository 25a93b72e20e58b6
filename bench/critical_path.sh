#!/usr/bin/env bash
# The cost of explaining a run (issue #27) on the GPT-3 175B iteration of 1,024 NPUs (flow model):
# 1. bench/critical_path_bench.cpp: the runtime alone, critical path and blame off (/0) and on (/1), REPS interleaved
#    repetitions (the machine is shared: the minimum and the median of CPU time are both printed), and the 9
#    what-if runs on one thread (process CPU time);
# 2. the command a user runs, `chorus sim ... --out` (loading, simulating, writing the reports), with
#    --no-critical-path, as it is (critical path and blame on), and with --what-if: user + system CPU seconds from
#    /usr/bin/time, the minimum of RUNS runs. Floors: critical path and blame <= 10% more CPU than a plain run;
#    --what-if <= (1 + 9) x a plain run's CPU.
# Run it alone (no build beside it): CPU time on a loaded machine is stretched by cache and memory contention.
#
#   bench/critical_path.sh [BUILD_DIR]     (default BUILD_DIR: <repo>/build; REPS=10 RUNS=3)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
reps="${REPS:-10}"
runs="${RUNS:-3}"
cd "$repo"

echo "== runtime alone (bench/critical_path_bench.cpp, $reps repetitions, CPU ms per run)"
runs_of=$("$build/critical_path_bench" --benchmark_filter='CriticalPathGpt3' --benchmark_repetitions="$reps" \
  --benchmark_enable_random_interleaving=true 2>/dev/null | awk '/^CriticalPathGpt3\/[01]\/iterations:3 / {print $1, $4}')
for arg in 0 1; do
  echo "$runs_of" | awk -v k="CriticalPathGpt3/$arg/" 'index($1, k) == 1 {print $2}' | sort -n |
    awk -v a="$arg" '{v[NR] = $1} END {printf "CriticalPathGpt3/%s (critical path %s): min %d ms, median %d ms CPU\n",
                     a, a == 1 ? "on" : "off", v[1], v[int((NR + 1) / 2)]}'
done
"$build/critical_path_bench" --benchmark_filter='WhatIfGpt3' 2>/dev/null | awk '/^WhatIfGpt3/ {print "WhatIfGpt3 (9 runs, one thread): " $4 " ms CPU"}'

traces=/tmp/chorus_critical_path_bench_cli
[ -f "$traces/llm.0.et" ] ||
  "$build/chorus" generate llm --model gpt3-175b --dp 8 --tp 8 --pp 16 --microbatches 16 --out "$traces" >/dev/null
sim=("$build/chorus" sim --workload "$traces" --comm-groups "$traces/comm_groups.json"
     --network examples/networks/rail_3d_1024.yml --system examples/systems/llm_a100.json --model flow
     --out /tmp/chorus_critical_path_bench_out)
cpu_s() {
  local best=""
  for _ in $(seq "$runs"); do
    local t
    /usr/bin/time -o /tmp/chorus_critical_path_bench_time -f "%U %S" "$@" >/dev/null 2>&1
    t=$(awk '{print $1 + $2}' /tmp/chorus_critical_path_bench_time)
    best=$(awk -v a="$t" -v b="${best:-$t}" 'BEGIN {print (a < b ? a : b)}')
  done
  echo "$best"
}
echo "== chorus sim (user + system CPU s, min of $runs)"
plain=$(cpu_s "${sim[@]}" --no-critical-path)
with=$(cpu_s "${sim[@]}")
what_if=$(cpu_s "${sim[@]}" --what-if)
echo "plain (--no-critical-path): $plain"
echo "critical path and blame:    $with ($(awk -v a="$with" -v b="$plain" 'BEGIN {printf "%+.1f%%", 100 * (a / b - 1)}'))"
echo "--what-if (9 runs):         $what_if ($(awk -v a="$what_if" -v b="$plain" 'BEGIN {printf "%.2f", a / b}') x plain)"
