#!/usr/bin/env bash
# The first command of the README: installs what is missing, builds fw,
# compiles the example MLP with fwc into a fat binary and runs it on the CPU
# with fw-run on generated inputs (batch of 4), printing the outputs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FW_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
"$root/scripts/build.sh"

out="$build/examples"
mkdir -p "$out"
echo "== fwc examples/mlp.mlir -o $out/mlp.fwb"
"$build/bin/fwc" "$root/examples/mlp.mlir" -o "$out/mlp.fwb"
echo "== fw-run --list $out/mlp.fwb"
"$build/tools/fw-run/fw-run" --list "$out/mlp.fwb"
echo "== fw-run $out/mlp.fwb --function=main"
"$build/tools/fw-run/fw-run" "$out/mlp.fwb" --function=main
