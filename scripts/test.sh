#!/usr/bin/env bash
# The second command of the README: installs what is missing, builds fw and
# runs every test: the runtime's unit tests (ctest) and the compiler's lit
# tests, which include the end-to-end tests (compile with fwc, run with
# fw-run, compare against numpy).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FW_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
"$root/scripts/build.sh"

echo "== unit tests (ctest)"
# A test that hangs (a lost wake-up, a task left in a queue) fails after 15 minutes
# instead of holding the run; the slowest take seconds.
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 900

# The runtime benchmark, as docs/performance.md builds it: the runtime compiled again by
# the system's C compiler (gcc), whose warnings differ from clang's, as errors.
echo "== the runtime benchmark builds (bench/, system C compiler)"
cmake -S "$root/bench" -B "$build/bench" -G Ninja -DFW_BENCH_BUILD_RUNTIME=ON \
  -DFW_BENCH_KERNELS=OFF > /dev/null
ninja -C "$build/bench" fw-runtime-bench

echo "== compiler and end-to-end tests (lit)"
lit=/usr/lib/llvm-22/bin/lit
"$lit" -sv "$build/test"

# The end-to-end tests again under the other scheduling policies (heft is the
# default) with one and three CPU workers (kernels that divide their work run
# as three workgroups): same answers whatever the schedule.
for sched in eager:1 ws:3; do
  echo "== end-to-end tests with FW_SCHED=${sched%:*} FW_NUM_WORKERS=${sched#*:}"
  FW_SCHED="${sched%:*}" FW_NUM_WORKERS="${sched#*:}" "$lit" -q "$build/test/e2e"
done

# And with the host tier as small as the tasks allow (FW_TIER_LIMITS=host=min): every
# buffer no running task uses goes to the storage tier's files and comes back for the
# next one. Same answers.
echo "== end-to-end tests with FW_TIER_LIMITS=host=min (everything else spills to storage)"
FW_TIER_LIMITS=host=min "$lit" -q "$build/test/e2e"

# And compiled at the other optimization levels: -O0 (no fusion, one task per
# operation) and -O1 (fusion, no LLVM vectorizers). Same answers.
for opt in -O0 -O1; do
  echo "== end-to-end tests compiled with fwc $opt"
  FW_E2E_FWC_FLAGS="$opt" "$lit" -q "$build/test/e2e"
done

# And with every CPU kernel that the GPU mapping accepts replaced by its mapped form
# (fused loop nests, private scalars, grid-stride loops) on an emulated grid of 3
# blocks of 5 threads: the GPU kernels' logic, checked where there is no GPU.
echo "== end-to-end tests with the GPU mapping emulated on the CPU"
FW_E2E_FWC_FLAGS="--test-gpu-mapping-on-cpu" "$lit" -q "$build/test/e2e"

# And with every fw-run under valgrind's memcheck: the compiled kernels' buffers (no
# sanitizer instruments them) leak nothing and are never read or written out of bounds.
# AVX-512 variants are left out (valgrind's CPU has none).
echo "== end-to-end tests with fw-run under valgrind's memcheck"
reports="$build/memcheck-reports"
rm -rf "$reports"
FW_E2E_FW_RUN="$root/scripts/memcheck-fw-run.sh" FW_MEMCHECK_FW_RUN="$build/tools/fw-run/fw-run" \
  FW_MEMCHECK_REPORTS="$reports" "$lit" -q --param avx512=0 "$build/test/e2e"
if [ -d "$reports" ]; then
  echo "memcheck found errors in runs that were expected to fail:" >&2
  cat "$reports"/* >&2
  exit 1
fi

# And with NVIDIA and AMD code in every module, through the runtime's GPU paths: on
# a machine without GPUs the stand-in drivers (runtime/test/fake_cuda.c, fake_hip.c)
# take the kernels' images and the inputs' copies and fail every launch, so each task
# is rerun on the CPU. Without ptxas or the AMD device libraries, fewer targets.
gpu_targets=""
[ -x /usr/local/cuda/bin/ptxas ] && gpu_targets+=",sm_90"
[ -d /usr/lib/x86_64-linux-gnu/amdgcn/bitcode ] && gpu_targets+=",gfx942"
if [ -n "$gpu_targets" ]; then
  echo "== end-to-end tests with${gpu_targets//,/ } variants on the stand-in GPU drivers"
  FW_E2E_FWC_FLAGS="--targets=cpu$gpu_targets" FW_DEVICES=cuda,hip \
    FW_TEST_GPU_DRIVER_PATH="$build/fake-cuda:$build/fake-hip" "$lit" -q "$build/test/e2e"
  echo "== the same with FW_TIER_LIMITS=host=min,device=min (device memory spills too)"
  FW_E2E_FWC_FLAGS="--targets=cpu$gpu_targets" FW_DEVICES=cuda,hip \
    FW_TEST_GPU_DRIVER_PATH="$build/fake-cuda:$build/fake-hip" \
    FW_TIER_LIMITS=host=min,device=min "$lit" -q "$build/test/e2e"
else
  echo "== skipped: end-to-end tests with GPU variants (no ptxas, no AMD device libraries)"
fi
