#!/usr/bin/env bash
# Builds chorus and runs the whole test suite (GoogleTest through CTest).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure --parallel "$(nproc)" --timeout 600
