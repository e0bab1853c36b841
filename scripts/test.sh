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
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"

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

# And compiled at the other optimization levels: -O0 (no fusion, one task per
# operation) and -O1 (fusion, no LLVM vectorizers). Same answers.
for opt in -O0 -O1; do
  echo "== end-to-end tests compiled with fwc $opt"
  FW_E2E_FWC_FLAGS="$opt" "$lit" -q "$build/test/e2e"
done

# And with NVIDIA code in every module, through the runtime's CUDA path: on a
# machine without a GPU the stand-in driver (runtime/test/fake_cuda.c) takes
# the kernels' images and the inputs' copies and fails every launch, so each
# task is rerun on the CPU. Where ptxas is missing there is no NVIDIA code.
if [ -x /usr/local/cuda/bin/ptxas ]; then
  echo "== end-to-end tests with sm_90 variants on the stand-in CUDA driver"
  FW_E2E_FWC_FLAGS="--targets=cpu,sm_90" FW_DEVICES=cuda \
    FW_TEST_CUDA_DRIVER_DIR="$build/fake-cuda" "$lit" -q "$build/test/e2e"
else
  echo "== skipped: end-to-end tests with sm_90 variants (no /usr/local/cuda/bin/ptxas)"
fi
