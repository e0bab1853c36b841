#!/usr/bin/env bash
# Configures (once) and builds fw into ${FW_BUILD_DIR:-build} with Ninja.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FW_BUILD_DIR:-$root/build}"
jobs="${FW_JOBS:-$(nproc)}"

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
fi
ninja -C "$build" -j "$jobs"
