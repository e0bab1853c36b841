//===- RuntimeABI.h - The host-call ABI between compiled code and runtime -===//
//
// Compiled host code reaches the runtime through a table of function pointers
// that every fat binary defines (`__fw_rt_table`) and that the runtime fills
// when it loads the module, so a fat binary has no undefined runtime symbols
// and loads even when the runtime itself was loaded privately (dlopen with
// RTLD_LOCAL, Python ctypes). The order of the table is part of the ABI
// (docs/runtime.md): version 1 has the first nine entries, version 2 adds
// fw_rt_dispatch_after, version 4 the CPU kernels' allocator
// (fw_rt_kernel_alloc, fw_rt_kernel_free, called by the kernels through the
// same table); runtime/src/invocation.c fills it in the same order.
//
//===----------------------------------------------------------------------===//

#ifndef FW_CONVERSION_FWHOSTTORUNTIME_RUNTIMEABI_H
#define FW_CONVERSION_FWHOSTTORUNTIME_RUNTIMEABI_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::fw {

/// Symbol of the function table in a fat binary.
constexpr llvm::StringLiteral kRuntimeTableSymbol = "__fw_rt_table";

/// The runtime functions, in table order.
constexpr llvm::StringLiteral kRuntimeFunctions[] = {
    "fw_rt_arg",      "fw_rt_buffer_dim", "fw_rt_buffer_alloc",
    "fw_rt_buffer_release", "fw_rt_dispatch", "fw_rt_prefetch",
    "fw_rt_wait",     "fw_rt_set_result", "fw_rt_assert",
    "fw_rt_dispatch_after", "fw_rt_kernel_alloc", "fw_rt_kernel_free"};

/// The table slot of runtime function `name`, if it is one.
inline std::optional<unsigned> getRuntimeFunctionSlot(llvm::StringRef name) {
  for (auto [i, fn] : llvm::enumerate(kRuntimeFunctions))
    if (fn == name)
      return i;
  return std::nullopt;
}

} // namespace mlir::fw

#endif // FW_CONVERSION_FWHOSTTORUNTIME_RUNTIMEABI_H
