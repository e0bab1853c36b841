# fw_add_module(<target> SOURCES <model.mlir>
#               [MODULE_NAME <name>] [TARGETS <cpu,x86-64-v4,...>]
#               [RUNTIME static|shared|none] [FWC_FLAGS <flags>...])
#
# Compiles the MLIR model with fwc at build time into an object that embeds
# the fat binary, plus a header <name>.h, and links both into <target> with
# the fw runtime: fw::runtime (static, the default), fw::runtime_shared, or
# none (the target links a runtime itself). Editing the .mlir file rebuilds
# the module. The header is on <target>'s include path: #include "<name>.h".
# FWC_FLAGS are passed to fwc as they are (e.g. -O2).
function(fw_add_module target)
  cmake_parse_arguments(ARG "" "MODULE_NAME;RUNTIME" "SOURCES;TARGETS;FWC_FLAGS" ${ARGN})
  if(NOT ARG_RUNTIME)
    set(ARG_RUNTIME static)
  endif()
  if(NOT ARG_RUNTIME MATCHES "^(static|shared|none)$")
    message(FATAL_ERROR "fw_add_module: RUNTIME must be static, shared or none, got '${ARG_RUNTIME}'")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "fw_add_module: '${target}' is not a target")
  endif()
  list(LENGTH ARG_SOURCES count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "fw_add_module: give exactly one .mlir file in SOURCES")
  endif()
  get_filename_component(source "${ARG_SOURCES}" ABSOLUTE)
  if(NOT ARG_MODULE_NAME)
    get_filename_component(ARG_MODULE_NAME "${source}" NAME_WE)
  endif()
  if(NOT ARG_MODULE_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "fw_add_module: MODULE_NAME '${ARG_MODULE_NAME}' is not a C identifier")
  endif()
  set(targets_flag)
  if(ARG_TARGETS)
    string(REPLACE ";" "," targets "${ARG_TARGETS}")
    set(targets_flag "--targets=${targets}")
  endif()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/fw_modules/${target}")
  set(object "${dir}/${ARG_MODULE_NAME}.o")
  set(header "${dir}/${ARG_MODULE_NAME}.h")
  add_custom_command(
    OUTPUT "${object}" "${header}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${dir}"
    COMMAND fw::fwc "${source}" --emit=obj --module-name=${ARG_MODULE_NAME}
            ${targets_flag} ${ARG_FWC_FLAGS} -o "${object}" --header "${header}"
    DEPENDS "${source}" fw::fwc
    COMMENT "Compiling fw module ${ARG_MODULE_NAME} from ${ARG_SOURCES}"
    VERBATIM)
  set_source_files_properties("${object}" PROPERTIES EXTERNAL_OBJECT TRUE
                                                     GENERATED TRUE)
  target_sources(${target} PRIVATE "${object}" "${header}")
  target_include_directories(${target} PRIVATE "${dir}")
  if(ARG_RUNTIME STREQUAL "static")
    target_link_libraries(${target} PRIVATE fw::runtime)
  elseif(ARG_RUNTIME STREQUAL "shared")
    target_link_libraries(${target} PRIVATE fw::runtime_shared)
  endif()
endfunction()
