#!/usr/bin/env bash
# `chorus llm run --engine sim` (issue #25 part 4) on GPT-3 175B, TP 8 x PP 8, interleaved 3, batch 1,536, on
# 1,024 GPUs (DP 16) and 3,072 GPUs (DP 48), a100-80gb tiers, flow model: user + system CPU seconds and peak RSS
# from /usr/bin/time, the minimum of RUNS runs. Floors: <= 5 s CPU at 1,024 GPUs, <= 10 s at 3,072.
#
#   bench/llm_sim_engine.sh [BUILD_DIR]     (default BUILD_DIR: <repo>/build; RUNS=3)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
runs="${RUNS:-3}"
cd "$repo"

for gpus in 1024 3072; do
  best=""
  for _ in $(seq "$runs"); do
    cpu=$(/usr/bin/time -f "%U %S %M" "$build/chorus" llm run --model examples/llm/gpt3-175b.json \
      --system a100-80gb --exec "examples/llm/gpt3-175b_${gpus}_exec.json" --engine sim 2>&1 >/dev/null |
      tail -1 | awk '{printf "%.2f %d", $1 + $2, $3 / 1024}')
    if [[ -z $best ]] || awk -v a="${cpu% *}" -v b="${best% *}" 'BEGIN {exit !(a < b)}'; then best=$cpu; fi
  done
  echo "GPT-3 175B on $gpus GPUs: ${best% *} s CPU (min of $runs), ${best#* } MiB peak"
done
