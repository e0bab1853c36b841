//===- OffloadImages.cpp - Device images of a fat binary ------------------===//

#include "fw/Target/FatBinary/OffloadImages.h"

#include "fw/Target/TargetDescription.h"

#include "llvm/Object/OffloadBinary.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::fw;

OffloadSection mlir::fw::buildOffloadSection(ModuleOp module) {
  OffloadSection section;
  for (auto exe : module.getOps<ExecutableOp>()) {
    for (auto variant : exe.getOps<VariantOp>()) {
      TargetAttrInterface target = variant.getTargetInterface();
      bool nvidia = isa<CUDATargetAttr>(target);
      if (!nvidia && !isa<HIPTargetAttr>(target))
        continue;
      const TargetDescription *desc = lookupTarget(target.getArchName());
      // NVIDIA: the cubin, then the PTX (the runtime finds it right after);
      // AMD: the code object.
      using Image = std::tuple<const char *, ImageFormat, llvm::object::ImageKind>;
      SmallVector<Image> images =
          nvidia ? SmallVector<Image>{{"fw.cubin", ImageFormat::Cubin,
                                       llvm::object::IMG_Cubin},
                                      {"fw.ptx", ImageFormat::PTX,
                                       llvm::object::IMG_PTX}}
                 : SmallVector<Image>{{"fw.hsaco", ImageFormat::HSACO,
                                       llvm::object::IMG_Object}};
      for (auto [attr, format, kind] : images) {
        auto data = variant->getAttrOfType<StringAttr>(attr);
        if (!data)
          continue;
        llvm::object::OffloadBinary::OffloadingImage image;
        image.TheImageKind = kind;
        image.TheOffloadKind = nvidia ? llvm::object::OFK_Cuda : llvm::object::OFK_HIP;
        image.StringData["triple"] = desc ? desc->triple : target.getTriple();
        image.StringData["arch"] = target.getArchName();
        image.Image = llvm::MemoryBuffer::getMemBuffer(data.getValue(), "",
                                                       /*RequiresNull=*/false);
        llvm::SmallString<0> blob = llvm::object::OffloadBinary::write(image);
        while (section.bytes.size() % 8)
          section.bytes.push_back('\0');
        section.images.push_back(
            {variant, format, section.bytes.size(), blob.size()});
        section.bytes.append(blob.begin(), blob.end());
      }
    }
  }
  return section;
}
