#!/usr/bin/env bash
# Builds chorus with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/ (no benchmarks) and runs the
# whole test suite under it; the first sanitizer report stops the test that hit it, and the suite fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

source scripts/lib/compiler-launcher.sh
# -O1: an instrumented translation unit compiles about 3x faster than at -O3 (runtime.cpp: 13 s against 39 s of
# CPU), which is most of CI's time; the suite runs somewhat slower, and -O1 is what the sanitizer docs suggest.
cmake -S . -B build-asan -G Ninja "${CHORUS_LAUNCHER_ARGS[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCHORUS_SANITIZE=ON -DCHORUS_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan --parallel "$(nproc)"
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
cd build-asan
ctest --output-on-failure --parallel "$(nproc)" --timeout 600
