#!/usr/bin/env bash
# Builds chorus and runs its main job on the shipped examples: a hierarchical All-Reduce on an ASTRA-sim-format
# 3-level network, the same collective on a generated 2D torus, and the lower bound of an edge-list topology.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
set -x
build/chorus collective --network examples/networks/ring_fc_switch_4x4x8.yml --system examples/systems/hierarchical.json \
  --collective all_reduce --size 64MiB
build/chorus collective --topology torus2d:16x16 --bandwidth 50GB/s --latency 500ns --algorithm ring \
  --collective all_gather --size 1GiB --json
build/chorus bound --topology examples/topologies/two_pods.txt --collective all_reduce --size 1GiB
