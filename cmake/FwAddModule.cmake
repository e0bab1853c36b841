# fw_add_module(<target> SOURCES <model.mlir>
#               [MODULE_NAME <name>] [TARGETS <cpu,x86-64-v4,...>]
#               [FWC_FLAGS <flags>...])
#
# Compiles the MLIR model with fwc at build time into an object that embeds
# the fat binary, plus a header <name>.h, and links both into <target> with
# the fw runtime. Editing the .mlir file rebuilds the module. The header is
# on <target>'s include path: #include "<name>.h".
function(fw_add_module target)
  cmake_parse_arguments(ARG "" "MODULE_NAME" "SOURCES;TARGETS;FWC_FLAGS" ${ARGN})
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
  target_link_libraries(${target} PRIVATE fw::runtime)
endfunction()
