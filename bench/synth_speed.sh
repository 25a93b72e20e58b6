#!/usr/bin/env bash
# CPU time of the speed floors of issues #28 and #30, as whole `chorus` processes:
#   chorus synth All-Gather (1 GiB, --chunks auto) on the 1,024-NPU TACOS inputs mesh2d_32x32, torus2d_32x32,
#   hypercube_d10 and dgxlike_128x8 (floor: <= 0.5 s CPU each; the JSON line includes the cut bound), and
#   chorus collective, the 4,096-NPU Ring x FullyConnected x Switch All-Reduce with its bound (floor: <= 0.08 s CPU).
# CPU time (perf stat task-clock: user + system), not wall time: the development machine is shared. Runs are
# interleaved round by round (and build by build when a second build is given, so both see the same load); prints
# the median and the minimum of RUNS runs (default 7) per case and build, in ms.
#
#   bench/synth_speed.sh [BUILD_DIR [OTHER_BUILD_DIR]]    (default BUILD_DIR: <repo>/build; needs perf)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
builds=("$(cd "${1:-$repo/build}" && pwd)")
[[ $# -ge 2 ]] && builds+=("$(cd "$2" && pwd)")
reference="${CHORUS_REFERENCE_DIR:-$repo/tests/data/reference}"
runs="${RUNS:-7}"
command -v perf >/dev/null || { echo "bench/synth_speed.sh needs perf (apt-get install linux-perf)" >&2; exit 1; }

cases=(mesh2d_32x32 torus2d_32x32 hypercube_d10 dgxlike_128x8 ring_fc_switch_16x16x16)
arguments() {
  if [[ $1 == ring_fc_switch_16x16x16 ]]; then
    echo "collective --network $repo/examples/networks/ring_fc_switch_16x16x16.yml" \
      "--system $repo/examples/systems/hierarchical.json --collective all_reduce --size 1GiB"
  else
    echo "synth --topology $reference/tacos-inputs/$1.txt --collective all_gather --size 1GiB --json"
  fi
}
# One run's task-clock in ms.
cpu_ms() {
  perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {printf "%.1f\n", $1}'
}

samples="$(mktemp -d)"
trap 'rm -rf "$samples"' EXIT
for ((round = 0; round < runs; ++round)); do
  for c in "${cases[@]}"; do
    for b in "${!builds[@]}"; do
      # shellcheck disable=SC2046  # the arguments are words
      cpu_ms "${builds[$b]}/chorus" $(arguments "$c") >>"$samples/$c.$b"
    done
  done
done
printf '%-26s %-40s %12s %10s\n' case build "median ms" "min ms"
for c in "${cases[@]}"; do
  for b in "${!builds[@]}"; do
    sort -n "$samples/$c.$b" | awk -v c="$c" -v b="${builds[$b]}" \
      '{v[NR] = $1} END {printf "%-26s %-40s %12.1f %10.1f\n", c, b, v[int((NR + 1) / 2)], v[1]}'
  done
done
