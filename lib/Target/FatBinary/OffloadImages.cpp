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
      auto cuda = dyn_cast<CUDATargetAttr>(variant.getTarget());
      if (!cuda)
        continue;
      const TargetDescription *desc = lookupTarget(cuda.getArch());
      for (auto [attr, format, kind] :
           {std::make_tuple("fw.cubin", ImageFormat::Cubin,
                            llvm::object::IMG_Cubin),
            std::make_tuple("fw.ptx", ImageFormat::PTX,
                            llvm::object::IMG_PTX)}) {
        auto data = variant->getAttrOfType<StringAttr>(attr);
        if (!data)
          continue;
        llvm::object::OffloadBinary::OffloadingImage image;
        image.TheImageKind = kind;
        image.TheOffloadKind = llvm::object::OFK_Cuda;
        image.StringData["triple"] = desc ? desc->triple : "nvptx64-nvidia-cuda";
        image.StringData["arch"] = cuda.getArch();
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
