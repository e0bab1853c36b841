# add_mlir_tool makes tools EXCLUDE_FROM_ALL with this MLIR package; build them
# with add_llvm_executable instead so `ninja` always builds them.
function(add_fw_tool name)
  add_llvm_executable(${name} ${ARGN})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
endfunction()
