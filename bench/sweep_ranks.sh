#!/usr/bin/env bash
# Times a 10,000-point `chorus sweep` (chorus bound on a 4x4 torus over 100 sizes x 100 bandwidths) on one MPI rank
# and on two, one point at a time per rank (--threads 1), and prints the speedup (issue #16's floor: >= 1.8x).
#
#   bench/sweep_ranks.sh [BUILD_DIR]      (default BUILD_DIR: <repo>/build; needs chorus built with MPI and mpirun)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
chorus="${1:-$repo/build}/chorus"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$work/grid.yml" <<'PY'
import sys
sizes = ", ".join(f"{i}MiB" for i in range(1, 101))
bandwidths = ", ".join(f"{i}GB/s" for i in range(1, 101))
open(sys.argv[1], "w").write(f"""job: bound
args: [--topology, "torus2d:4x4", --latency, 500ns, --collective, all_reduce]
axes:
  --size: [{sizes}]
  --bandwidth: [{bandwidths}]
""")
PY

run() {  # ranks
  local out="$work/sweep_$1.csv" start end
  start=$(date +%s.%N)
  mpirun --allow-run-as-root --oversubscribe -np "$1" "$chorus" sweep --grid "$work/grid.yml" --out "$out" --threads 1
  end=$(date +%s.%N)
  [[ $(wc -l <"$out") -eq 10001 ]] || { echo "expected 10,000 rows in $out" >&2; exit 1; }
  python3 -c "print(f'{$end - $start:.2f}')"
}

one=$(run 1 | tail -1)
two=$(run 2 | tail -1)
python3 -c "print(f'1 rank: {$one} s   2 ranks: {$two} s   speedup: {$one / $two:.2f}x')"
