# fw_add_fuzzer(NAME SOURCES src... LIBRARIES lib... CORPUS dir [RUNS n] [MAX_LEN bytes]):
# a libFuzzer target NAME (AddressSanitizer and UndefinedBehaviorSanitizer on) and two
# tests (and their set-up), labelled `fuzz`:
#   NAME.corpus  runs every input of CORPUS once (the seeds, and every input that once
#                crashed it: a fixed bug stays fixed);
#   NAME.search  mutates them for RUNS executions from a fixed seed, into a directory
#                emptied first (the same search wherever it runs: NAME.found in the build
#                directory, with a crashing input as NAME-crash-* beside it).
# `ctest -L fuzz` runs them alone; `NAME -max_total_time=600 NEW_DIR CORPUS` searches
# longer, writing what it finds into NEW_DIR (the first directory is written to).
# The libraries must be built with -fsanitize=fuzzer-no-link (fw_runtime_fuzz is).
function(fw_add_fuzzer name)
  cmake_parse_arguments(ARG "" "CORPUS;RUNS;MAX_LEN" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_RUNS)
    set(ARG_RUNS 20000)
  endif()
  if(NOT ARG_MAX_LEN)
    set(ARG_MAX_LEN 4096)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  set(flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
  target_compile_options(${name} PRIVATE ${flags} -g -fno-omit-frame-pointer -Wall -Wextra
                                         -Werror)
  target_link_options(${name} PRIVATE ${flags})
  target_link_libraries(${name} PRIVATE ${ARG_LIBRARIES})
  set(found ${CMAKE_CURRENT_BINARY_DIR}/${name}.found)
  set(env "ASAN_OPTIONS=detect_leaks=1;UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
  add_test(NAME ${name}.corpus COMMAND ${name} -runs=0 ${ARG_CORPUS})
  # Each search starts from the corpus alone: what an earlier one found would change it.
  add_test(NAME ${name}.fresh COMMAND ${CMAKE_COMMAND} -E rm -rf ${found})
  add_test(NAME ${name}.mkdir COMMAND ${CMAKE_COMMAND} -E make_directory ${found})
  set_tests_properties(${name}.fresh PROPERTIES FIXTURES_SETUP ${name}.found LABELS fuzz)
  set_tests_properties(${name}.mkdir PROPERTIES FIXTURES_SETUP ${name}.found LABELS fuzz
                                                DEPENDS ${name}.fresh)
  add_test(NAME ${name}.search
    COMMAND ${name} -seed=1 -runs=${ARG_RUNS} -max_len=${ARG_MAX_LEN} -rss_limit_mb=2048
            -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/${name}- ${found}
            ${ARG_CORPUS})
  set_tests_properties(${name}.corpus ${name}.search PROPERTIES
    LABELS fuzz ENVIRONMENT "${env}" TIMEOUT 600)
  set_tests_properties(${name}.search PROPERTIES FIXTURES_REQUIRED ${name}.found)
endfunction()
