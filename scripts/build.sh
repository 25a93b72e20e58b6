#!/usr/bin/env bash
# Configures and builds chorus (Release) into build/: the program, the tests and the benchmarks. Extra arguments go
# to cmake's configure step. scripts/run-example.sh builds only the program, in the same build/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Explicit ONs: run-example.sh may have left them OFF in build/'s cache; the library's objects are reused.
source scripts/lib/compiler-launcher.sh
cmake -S . -B build -G Ninja "${CHORUS_LAUNCHER_ARGS[@]}" -DCMAKE_BUILD_TYPE=Release -DCHORUS_BUILD_TESTS=ON -DCHORUS_BUILD_BENCH=ON \
  -DCHORUS_SIMGRID_CROSSCHECK=ON "$@" >/dev/null
cmake --build build --parallel "$(nproc)"
