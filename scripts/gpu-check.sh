#!/usr/bin/env bash
# Validation on a deployment machine (the GPU node): it has no LLVM or MLIR, so
# everything is prepared here and only fw-run and the .fwb files travel.
#
#   scripts/gpu-check.sh prepare [DIR]   # on the build machine (default DIR: build/gpu-check)
#   scripts/gpu-check.sh run [DIR]       # on the deployment machine
#
# `prepare` compiles test programs with fwc for the portable CPU target, writes
# their inputs and the expected outputs (numpy references) and copies fw-run.
# It also compiles every end-to-end test of test/e2e (scripts/gpu_check_cases.py
# lists them) for x86-64-v3, sm_80 and sm_90, with inputs and references, the
# GPU benchmarks of bench/gpu, a one-kernel program that fw-device-check
# runs directly on the CUDA device, and fw-task-gpu-check (C tasks with a CUDA
# implementation, run twice: the second time with the host tier as small as the
# tasks allow).
# `run` checks that fw-run needs no LLVM/MLIR library, runs every CPU program
# and compares with the references, lists the devices the runtime finds, runs
# the kernel on each GPU, then the end-to-end suite on the cuda device
# (--devices=cuda: every kernel with NVIDIA code runs on the GPU), an embedding
# lookup with good ids and with a bad one (a failed check reported), the results
# of the benchmark matmuls against numpy (inputs made there), and the GPU
# benchmarks against cuBLAS (PyTorch's torch.matmul) and the device's copy
# bandwidth, one launch at a time against two in flight (FW_GPU_PIPELINE), and the same
# benchmarks built with GPU autotuning candidates (the
# variant the runtime keeps, and its fastest call against the default build's).
# Its GPU parts say "skipped" where there is no CUDA device.
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
  # The end-to-end suite with NVIDIA code: one fat binary per program, its inputs and
  # references per case (computed here, through the CPU variants).
  mkdir -p "$dir/gpu"
  "$py" "$root/scripts/gpu_check_cases.py" >"$dir/gpu/list"
  local compiled=" "
  while IFS='|' read -r name src fn case shapes; do
    local module="$dir/gpu/$(basename "$src" .mlir).fwb"
    if [[ "$compiled" != *" $module "* ]]; then
      "$build/bin/fwc" "$root/$src" --targets=x86-64-v3,sm_80,sm_90 -o "$module" 2>/dev/null
      compiled+="$module "
    fi
    "$py" "$root/test/e2e/e2e.py" --fw-run="$build/tools/fw-run/fw-run" --module="$module" \
      --function="$fn" --case="$case" --arg-shapes="$shapes" --tmp="$dir/gpu/$name" \
      --keep-reference >/dev/null
  done <"$dir/gpu/list"
  # GPU benchmarks: fw-run generates their inputs on the GPU node.
  # The same with GPU autotuning candidates (block sizes, GEMM tiles).
  for b in "$root"/bench/gpu/*.mlir; do
    "$build/bin/fwc" "$b" --targets=x86-64-v3,sm_90 -o "$dir/gpu/bench_$(basename "$b" .mlir).fwb"
    "$build/bin/fwc" "$b" --targets=x86-64-v3,sm_90 --autotune=4 \
      -o "$dir/gpu/tune_$(basename "$b" .mlir).fwb"
  done
  # Kernels that check the indices they compute (an embedding lookup's ids).
  "$build/bin/fwc" "$root/test/e2e/kernel_checks.mlir" --targets=x86-64-v3,sm_80,sm_90 \
    -o "$dir/gpu/kernel_checks.fwb"
  # Four independent small kernels a call, for the GPU worker's kernels in flight.
  "$build/bin/fwc" "$root/test/runtime/gpu_pipeline.mlir" --targets=x86-64-v3,sm_90 \
    -o "$dir/gpu/pipeline.fwb"
  # One NVIDIA kernel, run directly on the CUDA device by fw-device-check.
  "$build/bin/fwc" "$root/test/runtime/device_check.mlir" --targets=x86-64-v3,sm_80,sm_90 \
    -o "$dir/cases/device_check.fwb"
  cp "$build/bin/fw-device-check" "$dir/fw-device-check"
  # C tasks with a CUDA implementation, through the public API.
  cp "$build/bin/fw-task-gpu-check" "$dir/fw-task-gpu-check"
  # The runtime benchmark (per-task overhead, simulated schedules, tiers) when built.
  local rb="${FW_BENCH_BUILD_DIR:-$root/build-bench}/fw-runtime-bench"
  if [ -x "$rb" ]; then cp "$rb" "$dir/fw-runtime-bench"; fi
  # And, when built with -DFW_RUNTIME_LOCK_STATS=ON, the same timing its scheduler lock.
  local rbl="${FW_BENCH_LOCK_BUILD_DIR:-$root/build-bench-lock}/fw-runtime-bench"
  if [ -x "$rbl" ]; then cp "$rbl" "$dir/fw-runtime-bench-lock"; fi
  echo "prepared $dir ($(du -sh "$dir" | cut -f1))"
}

run() {
  cd "$dir"
  local fail=0 py=""
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import numpy" 2>/dev/null; then py="$candidate"; break; fi
  done
  # limited CMD...: runs CMD with a time limit (a hung kernel must not take the whole
  # check's time on the GPU node); FW_CHECK_TIMEOUT seconds, 120 by default.
  # The runtime benchmark (many runs in one program) gets three times that.
  limited() { timeout -k 5 "${FW_CHECK_TIMEOUT:-120}" "$@"; }
  limited_long() { timeout -k 5 "$((${FW_CHECK_TIMEOUT:-120} * 3))" "$@"; }
  echo "== machine"
  uname -m; (grep -m1 'model name' /proc/cpuinfo || true) | sed 's/^/cpu: /'
  # The clock every task reads several times: a clock source other than tsc makes each
  # reading a system call.
  echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
  echo "== fw-run links no LLVM or MLIR"
  if ldd ./fw-run | grep -Ei 'llvm|mlir'; then echo "FAIL: fw-run needs LLVM/MLIR"; fail=1; else echo "ok"; fi
  echo "== CPU correctness (fat binaries built elsewhere for x86-64-v3)"
  # check NAME FN [fw-run flags...]: runs a case and compares with its reference.
  # check_in DIR MODULE NAME FN [fw-run flags...]: runs a case of DIR (its inputs and
  # references in DIR/NAME) and compares; fw-run's output is kept in DIR/NAME/run.log.
  check_in() {
    local where="$1" module="$2" name="$3" fn="$4"; shift 4
    local args=() outs=()
    for f in "$where/$name"/arg*.npy; do args+=("--input=@$f"); done
    for f in "$where/$name"/expected*.npy; do outs+=("--output=@${f/expected/got}"); done
    if ! limited ./fw-run "$module" --function="$fn" "${args[@]}" "${outs[@]}" "$@" \
        >"$where/$name/run.log" 2>&1; then
      echo "FAIL $name $*: fw-run failed"; sed 's/^/  /' "$where/$name/run.log"; fail=1; return 1
    fi
    if [ -z "$py" ]; then echo "RAN $name $* (numbers not compared: no Python with numpy)"; return 0; fi
    if ! "$py" - "$where/$name" <<'PY'
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
    then echo "FAIL $name $*: wrong numbers"; fail=1; return 1; fi
    return 0
  }
  check() {
    local name="$1" fn="$2"; shift 2
    if check_in cases "cases/$name.fwb" "$name" "$fn" "$@"; then
      cat "cases/$name/run.log" | grep -E '^(stats|  )' || true
      echo "PASS $name $*"
    fi
  }
  while IFS='|' read -r name fn; do check "$name" "$fn"; done <cases/list
  echo "== the task graph under every policy, worker count and a capped host tier"
  for sched in eager ws heft; do
    for workers in 1 4 16; do check task_graph task_graph --scheduler=$sched --workers=$workers; done
  done
  check task_graph task_graph --tier-limits=host=5600KiB --stats
  check task_graph task_graph --tier-limits=host=5600KiB --no-prefetch --stats
  if [ -x ./fw-runtime-bench ]; then
    echo "== runtime benchmark"
    limited_long ./fw-runtime-bench --workers=1,2,8,16 || { echo "FAIL fw-runtime-bench"; fail=1; }
    echo "== one task's round trip (submit, run, wait), and calls of 100 tasks"
    limited_long ./fw-runtime-bench --only=overhead --cases=independent,chain --workers=1,16 \
      --tasks=20000 --rounds=20000 || { echo "FAIL fw-runtime-bench round trip"; fail=1; }
    limited_long ./fw-runtime-bench --only=overhead --cases=independent --workers=16 \
      --tasks=200000 --rounds=2000 || { echo "FAIL fw-runtime-bench rounds of 100"; fail=1; }
    echo "== one task 200 us apart: submitted then waited for, and through fw_task_run"
    for wait in task run; do
      limited_long ./fw-runtime-bench --only=overhead --cases=independent,chain \
        --workers=1,16 --tasks=2000 --rounds=2000 --round-gap-us=200 --round-wait=$wait ||
        { echo "FAIL fw-runtime-bench round trip ($wait)"; fail=1; }
    done
    echo "== the same round trip without polling (FW_SPIN_US=0: two wake-ups a round)"
    FW_SPIN_US=0 limited_long ./fw-runtime-bench --only=overhead --cases=independent \
      --policies=heft --workers=16 --tasks=2000 --rounds=2000 ||
      { echo "FAIL fw-runtime-bench round trip without polling"; fail=1; }
    if [ -x ./fw-runtime-bench-lock ]; then
      echo "== scheduler lock held per task (FW_RUNTIME_LOCK_STATS), 3 runs per row"
      limited_long ./fw-runtime-bench-lock --only=overhead --policies=eager,heft \
        --workers=2,8,16 --reps=3 || { echo "FAIL fw-runtime-bench-lock"; fail=1; }
    fi
    limited_long ./fw-runtime-bench --only=tiers --tier-workers=8 || { echo "FAIL fw-runtime-bench tiers"; fail=1; }
    # Every core computing; a tier with room beyond the 16 running tasks' inputs.
    # With direct I/O a compute / read of 1 asks 16 reads at once of the disk; at 8 the
    # disk has room to keep up.
    for ratio in 1 8; do
      limited_long ./fw-runtime-bench --only=tiers --tier-workers=16 --buffers=128 \
        --tier-limits=host=128MiB --reps=2 --compute-ratio=$ratio ||
        { echo "FAIL fw-runtime-bench tiers 16 workers, compute / read $ratio"; fail=1; }
    done
    echo "== combining a reduction's accumulators (a tree from 4 of 2 MiB) against a serial fold"
    limited_long ./fw-runtime-bench --only=reduce --policies=eager,heft --workers=4,16 \
      --reduce-mib=0.5,2,4,16 --reps=5 || { echo "FAIL fw-runtime-bench reduce"; fail=1; }
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
  limited ./fw-device-check cases/device_check.fwb scale_dispatch_0 || { echo "FAIL fw-device-check"; fail=1; }
  echo "== C tasks with a CUDA implementation (cuMemsetD8Async on the worker's stream)"
  limited ./fw-task-gpu-check || { echo "FAIL fw-task-gpu-check"; fail=1; }
  echo "== the same with the host tier as small as the tasks allow (accumulators spill too)"
  FW_TIER_LIMITS=host=min limited ./fw-task-gpu-check ||
    { echo "FAIL fw-task-gpu-check (host=min)"; fail=1; }
  echo "== the end-to-end suite on the cuda device"
  if ! ./fw-run --list-devices | grep -q '^cuda: [^n]'; then
    echo "skipped: no CUDA device ($(./fw-run --list-devices | grep '^cuda:' | sed -E 's/^cuda: none \((.*)\)$/\1/'))"
    return $fail
  fi
  local on_gpu=0 cpu_only=0 total=0
  while IFS='|' read -r name src fn case shapes; do
    total=$((total + 1))
    local module="gpu/$(basename "$src" .mlir).fwb"
    check_in gpu "$module" "$name" "$fn" --devices=cuda --stats || continue
    local log="gpu/$name/run.log"
    if grep -q 'GPU failures' "$log"; then
      echo "FAIL $name: $(grep 'GPU failures' "$log" | sed 's/^ *//')"; fail=1; continue
    fi
    local tasks
    tasks=$(grep -E '^  device cuda' "$log" | sed -E 's/.* ([0-9]+) tasks.*/\1/' | head -1 || true)
    if [ "${tasks:-0}" -gt 0 ]; then
      on_gpu=$((on_gpu + 1)); echo "PASS $name (cuda: $tasks tasks)"
    else
      cpu_only=$((cpu_only + 1)); echo "PASS $name (no kernel with NVIDIA code: CPU only)"
    fi
  done <gpu/list
  echo "end-to-end on cuda: $total cases, $on_gpu ran kernels on the GPU, $cpu_only on the CPU only"
  echo "== a GPU kernel's failed check (the error word in pinned host memory)"
  local lookup=(gpu/kernel_checks.fwb --function=lookup --devices=cuda
                --input=3x4xf32=0,1,2,3,10,11,12,13,20,21,22,23)
  if limited ./fw-run "${lookup[@]}" --input=4xi64=2,0,1,2 --stats >gpu/kernel_checks.log 2>&1 &&
     grep -q '4x4xf32=\[20 21 22 23\]\[0 1 2 3\]\[10 11 12 13\]\[20 21 22 23\]' gpu/kernel_checks.log &&
     grep -qE '^  device cuda.* [1-9][0-9]* tasks' gpu/kernel_checks.log; then
    echo "PASS lookup with good ids on cuda"
  else
    echo "FAIL lookup with good ids"; sed 's/^/  /' gpu/kernel_checks.log; fail=1
  fi
  if ! limited ./fw-run "${lookup[@]}" --input=4xi64=2,0,3,2 >gpu/kernel_checks_bad.log 2>&1 &&
     grep -q "check failed: 'tensor.extract': the index into dimension 0 is out of range" \
       gpu/kernel_checks_bad.log; then
    echo "PASS lookup with a bad id on cuda: $(tail -1 gpu/kernel_checks_bad.log)"
  else
    echo "FAIL lookup with a bad id"; sed 's/^/  /' gpu/kernel_checks_bad.log; fail=1
  fi
  echo "== GPU benchmarks (fw-run --benchmark on the cuda device; references: PyTorch)"
  for b in gpu/bench_*.fwb; do
    limited ./fw-run "$b" --devices=cuda --benchmark=5 --stats --print-max-elements=0 \
      >"$b.log" 2>&1 || { echo "FAIL $b"; sed 's/^/  /' "$b.log"; fail=1; continue; }
    echo "$(basename "$b" .fwb): $(grep -E '^(min|median):' "$b.log" | tr '\n' ' ')"
    grep -E 'GPU failures|device cuda' "$b.log" || true
  done
  echo "== kernels in flight: FW_GPU_PIPELINE=1 against 2, alternately (4 small kernels a call)"
  for round in 1 2 3; do
    for p in 1 2; do
      FW_GPU_PIPELINE=$p limited ./fw-run gpu/pipeline.fwb --devices=cuda --benchmark=200 \
        --print-max-elements=0 >gpu/pipeline.log 2>&1 ||
        { echo "FAIL pipeline $p"; sed 's/^/  /' gpu/pipeline.log; fail=1; continue; }
      echo "round $round, FW_GPU_PIPELINE=$p: $(grep -E '^(min|median):' gpu/pipeline.log | tr '\n' ' ')"
    done
  done
  echo "== the benchmark GEMMs' results (inputs made here, numpy's product as the reference)"
  # The 4096^3 matmuls take the big GEMM tile (getSizedGemmTiling); the end-to-end cases
  # are too small for it.
  if [ -n "$py" ]; then
    for name in matmul_f32 matmul_f16; do
      FW_CHECK_TIMEOUT="${FW_CHECK_TIMEOUT:-120}" "$py" - "$name" <<'PY' || fail=1
import os, re, subprocess, sys
import numpy as np
name = sys.argv[1]
dtype = np.float16 if name.endswith("f16") else np.float32
d = "gpu/check_" + name
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(0)
a = rng.uniform(-1, 1, (4096, 4096)).astype(dtype)
b = rng.uniform(-1, 1, (4096, 4096)).astype(dtype)
np.save(d + "/a.npy", a)
np.save(d + "/b.npy", b)
cmd = ["./fw-run", "gpu/bench_%s.fwb" % name, "--function=" + name, "--input=@%s/a.npy" % d,
       "--input=@%s/b.npy" % d, "--output=@%s/got.npy" % d, "--devices=cuda", "--stats"]
try:
    run = subprocess.run(cmd, capture_output=True, text=True,
                         timeout=int(os.environ["FW_CHECK_TIMEOUT"]))
except subprocess.TimeoutExpired:
    print("FAIL %s: fw-run timed out" % name)
    sys.exit(1)
if run.returncode != 0:
    print("FAIL %s: fw-run failed\n%s" % (name, run.stdout + run.stderr))
    sys.exit(1)
tasks = re.search(r"device cuda[^\n]*? \d+ workers?, (\d+) tasks", run.stdout)
want = a.astype(np.float32) @ b.astype(np.float32)
got = np.load(d + "/got.npy").astype(np.float32)
err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
# f16 results are rounded to f16 (relative 2^-11); f32 sums in another order.
tol = 2e-3 if dtype == np.float16 else 1e-4
ok = got.shape == want.shape and err <= tol and tasks and int(tasks.group(1)) > 0
print("%s %s 4096^3: max error %.2e of the largest value (tolerance %.0e), %s tasks on cuda"
      % ("PASS" if ok else "FAIL", name, err, tol, tasks.group(1) if tasks else "no"))
sys.exit(0 if ok else 1)
PY
    done
  else
    echo "skipped: no Python with numpy"
  fi
  echo "== GPU autotuning (fwc --autotune=4: the runtime measures 4 variants per kernel and keeps the fastest)"
  # seconds LOG: the fastest call of a benchmark log, in seconds.
  seconds() {
    sed -nE 's/^min: ([0-9.]+) (us|ms|s)$/\1 \2/p' "$1" |
      awk '{ print $1 * ($2 == "us" ? 1e-6 : $2 == "ms" ? 1e-3 : 1) }'
  }
  for b in gpu/tune_*.fwb; do
    local name="${b#gpu/tune_}"; name="${name%.fwb}"
    limited ./fw-run "$b" --devices=cuda --benchmark=60 --stats --print-max-elements=0 \
      >"$b.log" 2>&1 || { echo "FAIL $b"; sed 's/^/  /' "$b.log"; fail=1; continue; }
    grep -E '^  @.* on cuda' "$b.log" || echo "  $name: no GPU candidates were measured"
    local tuned base
    tuned=$(seconds "$b.log"); base=$(seconds "gpu/bench_$name.fwb.log")
    if [ -n "$tuned" ] && [ -n "$base" ]; then
      awk -v n="$name" -v t="$tuned" -v b="$base" 'BEGIN {
        printf "%s: fastest call %.3f ms with candidates, %.3f ms default build: speedup %.3f\n",
               n, t * 1e3, b * 1e3, b / t }'
    fi
  done
  if [ -n "$py" ] && "$py" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
    "$py" - gpu <<'PY'
import re, sys, torch
d = sys.argv[1]
def fw_median(name):
    text = open("%s/bench_%s.fwb.log" % (d, name)).read()
    m = re.search(r"median: ([0-9.]+) (us|ms|s)", text)
    return float(m.group(1)) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(2)] if m else None
def torch_seconds(fn, reps=20):
    fn(); torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record(); fn(); end.record(); torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e-3)
    return sorted(times)[len(times) // 2]
n = 4096
for name, dtype in (("matmul_f32", torch.float32), ("matmul_f16", torch.float16)):
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(n, n, device="cuda", dtype=dtype); b = torch.randn(n, n, device="cuda", dtype=dtype)
    ref = torch_seconds(lambda: torch.matmul(a, b))
    fw = fw_median(name)
    flops = 2.0 * n ** 3
    if fw:
        print("%s %dx%dx%d: fw %.3f ms (%.1f TFLOP/s), cuBLAS %.3f ms (%.1f TFLOP/s), fw/cuBLAS speed %.3f"
              % (name, n, n, n, fw * 1e3, flops / fw * 1e-12, ref * 1e3, flops / ref * 1e-12, ref / fw))
x = torch.empty(64 << 20, device="cuda", dtype=torch.float32)
y = torch.empty_like(x)
copy = torch_seconds(lambda: y.copy_(x))
peak = 2 * x.numel() * 4 / copy
add = torch_seconds(lambda: torch.add(x, y))
fw = fw_median("add_f32")
moved = 3 * x.numel() * 4
if fw:
    print("add_f32 64M: fw %.3f ms (%.0f GB/s), torch.add %.3f ms (%.0f GB/s), device copy %.0f GB/s; fw/copy bandwidth %.3f"
          % (fw * 1e3, moved / fw * 1e-9, add * 1e3, moved / add * 1e-9, peak * 1e-9, moved / fw / peak))
PY
  else
    echo "no PyTorch with CUDA here: the fw figures above stand alone"
  fi
  return $fail
}

case "$mode" in
  prepare) prepare ;;
  run) run ;;
  *) echo "usage: $0 prepare|run [DIR]" >&2; exit 2 ;;
esac
