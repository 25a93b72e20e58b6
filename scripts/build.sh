#!/usr/bin/env bash
# Configures and builds chorus (Release) into build/: the program, the tests and the benchmarks. Extra arguments go
# to cmake's configure step. scripts/run-example.sh builds only the program, in the same build/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Explicit ONs: run-example.sh may have left them OFF in build/'s cache; the library's objects are reused. The Python
# module is built for Debian's /usr/bin/python3, the interpreter pybind11-dev and python3-dev are installed for (not
# whichever python3 is first on PATH); CMake stops with a message if its headers are missing.
source scripts/lib/compiler-launcher.sh
python_args=(-DCHORUS_BUILD_PYTHON=ON)
if [[ -x /usr/bin/python3 ]]; then python_args+=(-DPython3_EXECUTABLE=/usr/bin/python3); fi
cmake -S . -B build -G Ninja "${CHORUS_LAUNCHER_ARGS[@]}" -DCMAKE_BUILD_TYPE=Release -DCHORUS_BUILD_TESTS=ON -DCHORUS_BUILD_BENCH=ON \
  -DCHORUS_SIMGRID_CROSSCHECK=ON "${python_args[@]}" "$@" >/dev/null
cmake --build build --parallel "$(nproc)"
