#!/usr/bin/env bash
# Installs the Debian packages chorus needs to build, test and benchmark. Idempotent; skips apt when all are present.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev
          libgtest-dev libgmock-dev libbenchmark-dev clang-format libprotobuf-dev protobuf-compiler zlib1g-dev
          libsimgrid-dev libopenmpi-dev openmpi-bin  # SimGrid: the flow cross-check; MPI: `mpirun ... chorus llm search`
          python3-dev pybind11-dev python3-setuptools python3-pip python3-venv)  # the Python module (docs/python.md)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
