# Runs ${FW_RUN} ${ARGS} in ${WORKDIR}; checks the exit code and that stdout/stderr
# match STDOUT_REGEX/STDERR_REGEX.
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(
  COMMAND ${FW_RUN} ${ARGS}
  WORKING_DIRECTORY ${WORKDIR}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
set(ok TRUE)
if(NOT "${rc}" STREQUAL "${EXPECT_RC}")
  message(SEND_ERROR "exit code: expected ${EXPECT_RC}, got '${rc}'")
  set(ok FALSE)
endif()
if(NOT "${out}" MATCHES "${STDOUT_REGEX}")
  message(SEND_ERROR "stdout does not match '${STDOUT_REGEX}'")
  set(ok FALSE)
endif()
if(NOT "${err}" MATCHES "${STDERR_REGEX}")
  message(SEND_ERROR "stderr does not match '${STDERR_REGEX}'")
  set(ok FALSE)
endif()
if(NOT ok)
  message(FATAL_ERROR "fw-run ${ARGS}\n--- stdout ---\n${out}\n--- stderr ---\n${err}")
endif()
