#!/usr/bin/env bash
# Installs the Debian packages chorus needs. Idempotent; skips apt when all are present; one line per step (apt's
# own output goes to a log, shown only when apt fails).
# Usage: scripts/install-deps.sh            everything: build, test (GoogleTest), benchmark, format, SimGrid
#        scripts/install-deps.sh --program  only what the `chorus` program needs (scripts/run-example.sh)
set -euo pipefail
# MPI is in both sets: it changes how the library is compiled, so a later full build reuses the program's objects.
packages=(build-essential cmake ninja-build pkg-config libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
          libprotobuf-dev protobuf-compiler zlib1g-dev libpugixml-dev libglpk-dev libopenmpi-dev openmpi-bin  # MPI: `mpirun ... chorus llm search`
          libns3-dev)  # ns-3: --model packet (12 MB; its two translation units add about 15 s of compiling)
if [[ ${1:-} != --program ]]; then
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev clang-format libsimgrid-dev  # SimGrid: the flow cross-check
            python3-dev pybind11-dev python3-setuptools python3-wheel python3-pip python3-venv  # the Python module
            chromium)  # renders the HTML reports in tests/report/html_report_test.cpp (skipped without it)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/chorus-apt.XXXXXX.log)
step() {  # step "what" command...: one line, the command's output in the log unless it fails
  echo "install-deps: $1"
  if ! "${@:2}" >>"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "install-deps: failed: $1 (full log: $log)" >&2
    exit 1
  fi
}
step "updating the package lists" $SUDO apt-get update -qq
step "installing ${#missing[@]} packages: ${missing[*]}" $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
rm -f "$log"
