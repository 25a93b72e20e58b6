#!/usr/bin/env bash
# Quality and speed of `chorus synth` on every TACOS input (All-Gather, 1 GiB output) against TACOS's measured
# time (tacos-results-table.csv ag_us_min) and the cut bound (tacos-bounds.csv ag_cont_bound_us).
# Usage: scripts/synth-quality.sh [build/chorus] [reference dir]   -> CSV on stdout
set -euo pipefail
chorus=${1:-build/chorus}
ref=${2:-$(dirname "$0")/../tests/data/reference}
echo "label,npus,chorus_us,tacos_us,bound_us,ratio_bound,ratio_tacos,chunks_per_npu,priority,synthesis_s,transfers"
tail -n +2 "$ref/tacos-results-table.csv" | while IFS=, read -r label npus rest; do
  tacos=$(echo "$rest" | cut -d, -f4)
  bound=$(grep "^$label," "$ref/tacos-bounds.csv" | cut -d, -f8)
  [ -f "$ref/tacos-inputs/$label.txt" ] || continue
  "$chorus" synth --topology "$ref/tacos-inputs/$label.txt" --collective all_gather --size 1GiB --json |
    python3 -c "
import json, sys
j = json.load(sys.stdin)
t = j['time_ns'] / 1e3
print(f\"$label,$npus,{t:.3f},$tacos,$bound,{t / $bound:.4f},{t / $tacos:.4f},{j['chunks_per_npu']},{j['priority']},{j['synthesis_s']:.3f},{j['transfers']}\")"
done
