#!/usr/bin/env bash
# chorus codesign at scale (issue #29): Llama-3 70B on 1,024 H100s with the three-dimension template
# examples/codesign/rail_3tier.yml (floor: <= 60 s CPU), and the (parallelism, network) pairs decided per CPU-minute
# (floor: >= 10^6). CPU time (user + system of the process, all threads), not wall time: the development machine is
# shared, and a loaded machine stretches wall time only.
#
#   bench/codesign.sh [BUILD_DIR] [THREADS] [TEMPLATE]
#       (default: <repo>/build, 2 threads, examples/codesign/rail_3tier.yml; rail_3tier_nccl.yml and
#       rail_3tier_synth.yml are the same networks with NCCL's or synthesized collectives per dimension)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
threads="${2:-2}"
template="${3:-examples/codesign/rail_3tier.yml}"
cd "$repo"
cmd=("$build/chorus" codesign --model examples/llm/llama3-70b.json --gpus 1024 --max-batch 1024 --machine dgx-h100
  --network "$template" --cost examples/codesign/cost_3tier.yml --budget dollars=60e6
  --objective time --top 10 --threads "$threads" --json)
echo "${cmd[*]}"
out="$(mktemp)"
trap 'rm -f "$out" "$out.time"' EXIT
/usr/bin/time -f '%U %S %e' -o "$out.time" "${cmd[@]}" >"$out"
read -r user sys wall <"$out.time"
python3 - "$out" "$user" "$sys" "$wall" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
user, system, wall = map(float, sys.argv[2:5])
cpu = user + system
print(f"networks {j['networks']} ({j['networks_over_budget']} over budget, {j['networks_searched']} searched)")
print(f"pairs decided {j['evaluated']:,} ({j['pruned']:,} pruned)")
print(f"CPU {cpu:.2f} s (user {user:.2f} + sys {system:.2f}), wall {wall:.2f} s   floor: <= 60 s CPU")
print(f"pairs per CPU-minute {j['evaluated'] / cpu * 60:,.0f}   floor: >= 1,000,000")
b = j["best"]
print(f"best: {b['time_s']:.4f} s per iteration, ${b['cost']:,.0f}, "
      + " | ".join(f"{d['name']} {d['bandwidth_GBps']:g}GB/s x{d['size']} {d['oversubscription']:g}:1"
                   for d in b["network"]["dimensions"]))
PY
