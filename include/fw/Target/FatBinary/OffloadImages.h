//===- OffloadImages.h - Device images of a fat binary ----------*- C++ -*-===//
//
// The `.llvm.offloading` section of a fat binary: one LLVM OffloadBinary per
// device image (a cubin and the PTX of each NVIDIA variant, the HSACO code
// object of each AMD variant), in executable
// and variant order. The metadata table refers to them by offset and size.
//
//===----------------------------------------------------------------------===//

#ifndef FW_TARGET_FATBINARY_OFFLOADIMAGES_H
#define FW_TARGET_FATBINARY_OFFLOADIMAGES_H

#include "fw/Dialect/FW/IR/FWOps.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::fw {

/// Image formats of the metadata table (docs/fat-binary.md).
enum class ImageFormat : uint32_t { Cubin = 1, PTX = 2, HSACO = 3, SPIRV = 4 };

struct DeviceImage {
  VariantOp variant;
  ImageFormat format;
  /// Of the image's OffloadBinary in the section.
  uint64_t offset, size;
};

struct OffloadSection {
  std::string bytes;
  SmallVector<DeviceImage> images;
};

/// Lays out the device images that convert-fw-gpu-variants-to-binary
/// attached to the variants of `module` (`fw.cubin`, `fw.ptx`, `fw.hsaco`).
OffloadSection buildOffloadSection(ModuleOp module);

} // namespace mlir::fw

#endif // FW_TARGET_FATBINARY_OFFLOADIMAGES_H
