#!/usr/bin/env bash
# Builds the chorus program (only it: no tests, no benchmarks) and runs its main job on the shipped examples: a
# hierarchical All-Reduce on an ASTRA-sim-format 3-level network, the same kind of job on a generated 2D torus, and
# the lower bound of an edge-list topology.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --program
echo "run-example: configuring and building build/chorus"
source scripts/lib/compiler-launcher.sh
cmake -S . -B build -G Ninja "${CHORUS_LAUNCHER_ARGS[@]}" -DCMAKE_BUILD_TYPE=Release -DCHORUS_BUILD_TESTS=OFF -DCHORUS_BUILD_BENCH=OFF \
  -DCHORUS_SIMGRID_CROSSCHECK=OFF >/dev/null
cmake --build build --parallel "$(nproc)" --target chorus -- --quiet

heading() {  # heading "what it shows" command...: the heading, the command, then its output
  printf '\n== %s\n$ %s\n' "$1" "${*:2}"
  "${@:2}"
}
heading "All-Reduce of 64 MiB on an ASTRA-sim network (ring x fully connected x switch, 128 NPUs), ASTRA-sim mode" \
  build/chorus collective --network examples/networks/ring_fc_switch_4x4x8.yml \
  --system examples/systems/hierarchical.json --collective all_reduce --size 64MiB
heading "All-Gather of 1 GiB with the ring algorithm on a generated 16x16 torus, as JSON" \
  build/chorus collective --topology torus2d:16x16 --bandwidth 50GB/s --latency 500ns --algorithm ring \
  --collective all_gather --size 1GiB --json
heading "Lower bound of a 1 GiB All-Reduce on an edge-list topology (two pods)" \
  build/chorus bound --topology examples/topologies/two_pods.txt --collective all_reduce --size 1GiB
