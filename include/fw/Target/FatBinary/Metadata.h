//===- Metadata.h - The .fw.meta table of a fat binary ----------*- C++ -*-===//
//
// Serializes the metadata table described in docs/fat-binary.md from a module
// lowered by the fwc pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef FW_TARGET_FATBINARY_METADATA_H
#define FW_TARGET_FATBINARY_METADATA_H

#include "fw/Target/FatBinary/OffloadImages.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::fw {

/// Version of the metadata table this compiler writes.
constexpr uint16_t kMetadataVersionMajor = 1;
constexpr uint16_t kMetadataVersionMinor = 4;
/// The newest version of the compiled code <-> runtime ABI (docs/runtime.md)
/// this compiler writes; a module records the version its host code needs
/// (kHostAbiAttrName, 1 when absent), 3 when a kernel reports failed checks
/// through its error word, 4 when a CPU kernel allocates buffers of its own
/// through the runtime.
constexpr uint32_t kRuntimeAbiVersion = 4;
/// The ABI version of kernels with an error word.
constexpr uint32_t kErrorWordAbiVersion = 3;
/// The ABI version of CPU kernels that allocate through the runtime.
constexpr uint32_t kKernelAllocatorAbiVersion = 4;

/// Builds the `.fw.meta` table of `module`, which must have been lowered
/// through the `host` phase (host entries carry `fw.entry_name` and
/// `fw.signature`), with image records for `offload`, the module's
/// `.llvm.offloading` section. Emits a diagnostic and fails on anything the
/// format cannot express.
FailureOr<std::string> buildMetadataTable(ModuleOp module,
                                          StringRef moduleName, uint64_t sourceId,
                                          const OffloadSection &offload);

} // namespace mlir::fw

#endif // FW_TARGET_FATBINARY_METADATA_H
