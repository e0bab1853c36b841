#!/usr/bin/env bash
# fw-run under valgrind's memcheck, for the end-to-end tests (FW_E2E_FW_RUN names this
# script; scripts/test.sh runs them so): the compiled kernels are plain machine code that
# no sanitizer instruments, and this is how their buffers are checked for leaks and
# invalid accesses. Arguments and exit status are fw-run's, except 99 where memcheck found
# an error; each such run's report is also kept in FW_MEMCHECK_REPORTS (a directory),
# since a test that expects fw-run to fail would not see the 99. Where valgrind itself
# cannot run the program (its translator gives up on a very large block of code), fw-run
# runs again without it.
set -uo pipefail
fw_run="${FW_MEMCHECK_FW_RUN:?FW_MEMCHECK_FW_RUN must name fw-run}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
valgrind --log-file="$log" --leak-check=full --errors-for-leak-kinds=definite \
  --error-exitcode=99 "$fw_run" "$@"
rc=$?
if grep -q "the 'impossible' happened" "$log"; then
  echo "memcheck-fw-run: valgrind could not run this program; it ran without it" >&2
  exec "$fw_run" "$@"
fi
if [ "$rc" -eq 99 ] || grep -q "ERROR SUMMARY: [1-9]" "$log"; then
  if [ -n "${FW_MEMCHECK_REPORTS:-}" ]; then
    mkdir -p "$FW_MEMCHECK_REPORTS"
    cp "$log" "$(mktemp "$FW_MEMCHECK_REPORTS/report.XXXXXX")"
  fi
  cat "$log" >&2
  exit 99
fi
exit "$rc"
