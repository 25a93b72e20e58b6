#!/usr/bin/env bash
# Start-up cost of small jobs (issue #30): CPU time (perf stat task-clock, -r 20), peak memory (/usr/bin/time -v
# maximum resident set size) and the shared libraries each process maps (LD_DEBUG=libs), for
#   chorus --version                                   (floors: <= 5 ms CPU, <= 8 MB)
#   chorus collective on a 256-NPU ring               (floor: <= 8 ms CPU)
#   python3 -c 'import chorus'                         (floor: <= 20 ms CPU; the interpreter alone is shown too)
# CPU time, not wall time: the development machine is shared, and a loaded machine stretches wall time only.
#
#   bench/startup.sh [BUILD_DIR]     (default BUILD_DIR: <repo>/build; needs perf: apt-get install linux-perf)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
chorus="$build/chorus"
# The interpreter itself, not a wrapper (pyenv's python3 is a shell script that costs more than the import).
python="$("${PYTHON:-python3}" -c 'import sys; print(sys.executable)')"
runs="${RUNS:-20}"
command -v perf >/dev/null || { echo "bench/startup.sh needs perf (apt-get install linux-perf)" >&2; exit 1; }

collective=(collective --topology ring:256 --bandwidth 50GB/s --latency 1us --collective all_reduce --size 64MiB)

# task-clock in ms, and its spread, from perf stat's CSV output (-x,)
cpu_ms() {
  perf stat -r "$runs" -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {printf "%.2f ms CPU (+- %s)", $1, $4}'
}
max_rss() {
  /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {printf "%.1f MB peak", $2 / 1024}'
}
libraries() {
  LD_DEBUG=libs "$@" 2>&1 >/dev/null | grep -c 'calling init:' || true
}
foreign() {  # the plugins' libraries a process mapped, if any
  LD_DEBUG=libs "$@" 2>&1 >/dev/null | grep -oE 'calling init: \S*(libns3|libmpi|libglpk|libchorus_)[^ ]*' |
    sed 's/calling init: //' | xargs -r -n1 basename | sort -u | tr '\n' ' '
}

report() {  # label, command...
  local label="$1"
  shift
  printf '%-34s %-28s %-14s %3s libraries  loaded: %s\n' "$label" "$(cpu_ms "$@")" "$(max_rss "$@")" \
    "$(libraries "$@")" "$(foreign "$@")"
}

echo "chorus: $chorus ($(uname -m), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
report "/bin/true (a process, for scale)" /bin/true
report "chorus --version" "$chorus" --version
report "chorus collective ring:256" "$chorus" "${collective[@]}"
report "python3 -c pass (the interpreter)" "$python" -c pass
PYTHONPATH="$build/python" report "python3 -c 'import chorus'" "$python" -c 'import chorus'
# The import alone, inside the interpreter (time.process_time around it), mean over the runs.
PYTHONPATH="$build/python" "$python" - "$runs" <<'PY'
import subprocess, sys
code = "import time; t = time.process_time(); import chorus; print(time.process_time() - t)"
runs = int(sys.argv[1])
times = [float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
         for _ in range(runs)]
print(f"{'import chorus, in the interpreter':34} {1e3 * sum(times) / runs:.2f} ms CPU (mean of {runs}, "
      f"min {1e3 * min(times):.2f})")
PY
