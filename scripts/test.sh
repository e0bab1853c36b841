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
