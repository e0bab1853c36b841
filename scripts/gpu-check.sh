#!/usr/bin/env bash
# Validation on a deployment machine (the GPU node): it has no LLVM or MLIR, so
# everything is prepared here and only fw-run and the .fwb files travel.
#
#   scripts/gpu-check.sh prepare [DIR]   # on the build machine (default DIR: build/gpu-check)
#   scripts/gpu-check.sh run [DIR]       # on the deployment machine
#
# `prepare` compiles test programs with fwc for the portable CPU target, writes
# their inputs and the expected outputs (numpy references) and copies fw-run;
# it also compiles a one-kernel program for sm_80 and sm_90 (cubins and PTX)
# and copies fw-device-check, which runs that kernel directly on the CUDA device.
# `run` checks that fw-run needs no LLVM/MLIR library, runs every program,
# compares with the references, lists the devices the runtime finds, and runs
# the kernel on each GPU ("skipped" visibly where there is none). The scheduler
# does not give tasks to GPUs yet, so the CPU programs run on the CPU.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode="${1:-}"
dir="${2:-$root/build/gpu-check}"

prepare() {
  local build="${FW_BUILD_DIR:-$root/build}"
  local py=/usr/bin/python3
  rm -rf "$dir" && mkdir -p "$dir/cases"
  cp "$build/tools/fw-run/fw-run" "$dir/fw-run"
  cp "$root/scripts/gpu-check.sh" "$dir/gpu-check.sh"
  # name | source | function | argument shapes
  local cases=(
    "mlp|examples/mlp.mlir|main|33x784;784x256;256;256x10;10"
    "elementwise|examples/elementwise.mlir|main|7x1024;1024"
    "softmax|test/e2e/softmax.mlir|softmax|31x128"
    "conv2d|test/e2e/conv2d.mlir|conv2d|2x18x18x4;3x3x4x8"
    "matmul_dynamic|test/e2e/matmul_dynamic.mlir|matmul_dynamic|77x128;128x32"
    "task_graph|test/e2e/task_graph.mlir|task_graph|1024x256;256x256;256x256;256x256;256x256"
  )
  for c in "${cases[@]}"; do
    IFS='|' read -r name src fn shapes <<<"$c"
    "$build/bin/fwc" "$root/$src" -o "$dir/cases/$name.fwb"
    "$py" "$root/test/e2e/e2e.py" --fw-run="$build/tools/fw-run/fw-run" \
      --module="$dir/cases/$name.fwb" --function="$fn" --case="${name/#elementwise/example_elementwise}" \
      --arg-shapes="$shapes" --tmp="$dir/cases/$name" --keep-reference >/dev/null
    echo "$name|$fn" >>"$dir/cases/list"
  done
  # One NVIDIA kernel, run directly on the CUDA device by fw-device-check.
  "$build/bin/fwc" "$root/test/runtime/device_check.mlir" --targets=x86-64-v3,sm_80,sm_90 \
    -o "$dir/cases/device_check.fwb"
  cp "$build/bin/fw-device-check" "$dir/fw-device-check"
  # The runtime benchmark (per-task overhead, simulated schedules, tiers) when built.
  local rb="${FW_BENCH_BUILD_DIR:-$root/build-bench}/fw-runtime-bench"
  if [ -x "$rb" ]; then cp "$rb" "$dir/fw-runtime-bench"; fi
  echo "prepared $dir ($(du -sh "$dir" | cut -f1))"
}

run() {
  cd "$dir"
  local fail=0 py=""
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import numpy" 2>/dev/null; then py="$candidate"; break; fi
  done
  echo "== machine"
  uname -m; (grep -m1 'model name' /proc/cpuinfo || true) | sed 's/^/cpu: /'
  echo "== fw-run links no LLVM or MLIR"
  if ldd ./fw-run | grep -Ei 'llvm|mlir'; then echo "FAIL: fw-run needs LLVM/MLIR"; fail=1; else echo "ok"; fi
  echo "== CPU correctness (fat binaries built elsewhere for x86-64-v3)"
  # check NAME FN [fw-run flags...]: runs a case and compares with its reference.
  check() {
    local name="$1" fn="$2"; shift 2
    local args=() outs=()
    for f in cases/$name/arg*.npy; do args+=("--input=@$f"); done
    for f in cases/$name/expected*.npy; do outs+=("--output=@${f/expected/got}"); done
    if ! ./fw-run "cases/$name.fwb" --function="$fn" "${args[@]}" "${outs[@]}" "$@"; then
      echo "FAIL $name $*: fw-run failed"; fail=1; return
    fi
    if [ -z "$py" ]; then echo "RAN $name $* (numbers not compared: no Python with numpy)"; return; fi
    if "$py" - "cases/$name" <<'PY'
import glob, sys
import numpy as np
d = sys.argv[1]
ok = True
for e in sorted(glob.glob(d + "/expected*.npy")):
    want, got = np.load(e), np.load(e.replace("expected", "got"))
    if want.shape != got.shape or not np.allclose(got, want, rtol=1e-4, atol=1e-4):
        ok = False
        print("  mismatch in", e, "max abs err", float(np.max(np.abs(got.astype(np.float64) - want))))
sys.exit(0 if ok else 1)
PY
    then echo "PASS $name $*"; else echo "FAIL $name $*: wrong numbers"; fail=1; fi
  }
  while IFS='|' read -r name fn; do check "$name" "$fn"; done <cases/list
  echo "== the task graph under every policy, worker count and a capped host tier"
  for sched in eager ws heft; do
    for workers in 1 4 16; do check task_graph task_graph --scheduler=$sched --workers=$workers; done
  done
  check task_graph task_graph --tier-limits=host=6400KiB --stats
  check task_graph task_graph --tier-limits=host=6400KiB --no-prefetch --stats
  if [ -x ./fw-runtime-bench ]; then
    echo "== runtime benchmark"
    ./fw-runtime-bench --workers=1,2,8,16 || { echo "FAIL fw-runtime-bench"; fail=1; }
    ./fw-runtime-bench --only=tiers --tier-workers=8 || { echo "FAIL fw-runtime-bench tiers"; fail=1; }
  fi
  echo "== GPU"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version --format=csv,noheader || true
  else
    echo "no nvidia-smi"
  fi
  echo "== devices the runtime finds"
  ./fw-run --list-devices || { echo "FAIL fw-run --list-devices"; fail=1; }
  echo "== an NVIDIA kernel run directly on each CUDA device"
  ./fw-run --list cases/device_check.fwb | grep -E '^(target|image)' || true
  ./fw-device-check cases/device_check.fwb scale_dispatch_0 || { echo "FAIL fw-device-check"; fail=1; }
  return $fail
}

case "$mode" in
  prepare) prepare ;;
  run) run ;;
  *) echo "usage: $0 prepare|run [DIR]" >&2; exit 2 ;;
esac
