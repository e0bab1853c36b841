//===- FWDialect.cpp - fw dialect -----------------------------------------===//

#include "fw/Dialect/FW/IR/FWDialect.h"

#include "fw/Dialect/FW/IR/FWOps.h"
#include "fw/Target/TargetDescription.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fw;

#include "fw/Dialect/FW/IR/FWDialect.cpp.inc"
#include "fw/Dialect/FW/IR/FWEnums.cpp.inc"
#include "fw/Dialect/FW/IR/FWAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fw/Dialect/FW/IR/FWAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "fw/Dialect/FW/IR/FWTypes.cpp.inc"

namespace {

/// Calls of functions that hold fw ops (tasks, assertions, prefetches) may
/// be inlined: fwc inlines the callees of an entry point before it forms its
/// tasks.
struct FWInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};

} // namespace

void FWDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fw/Dialect/FW/IR/FWAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "fw/Dialect/FW/IR/FWTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "fw/Dialect/FW/IR/FWOps.cpp.inc"
      >();
  addInterfaces<FWInlinerInterface>();
}

//===----------------------------------------------------------------------===//
// Target attributes
//===----------------------------------------------------------------------===//

static std::string listKnownArchs(::mlir::fw::TargetKind kind) {
  std::string names;
  for (const ::mlir::fw::TargetDescription &t : ::mlir::fw::getTargetDescriptions()) {
    if (t.kind != kind)
      continue;
    if (!names.empty())
      names += ", ";
    names += t.arch.str();
  }
  return names;
}

static LogicalResult verifyArch(function_ref<InFlightDiagnostic()> emitError,
                                StringRef arch, ::mlir::fw::TargetKind kind,
                                StringRef what) {
  const ::mlir::fw::TargetDescription *desc = ::mlir::fw::lookupTarget(arch);
  if (desc && desc->kind == kind)
    return success();
  return emitError() << "unknown " << what << " architecture '" << arch
                     << "'; expected one of: " << listKnownArchs(kind);
}

LogicalResult
CPUTargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StringRef arch) {
  return verifyArch(emitError, arch, ::mlir::fw::TargetKind::CPU, "CPU");
}
StringRef CPUTargetAttr::getKindName() const { return "cpu"; }

LogicalResult
CUDATargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       StringRef arch) {
  return verifyArch(emitError, arch, ::mlir::fw::TargetKind::CUDA, "CUDA");
}
StringRef CUDATargetAttr::getKindName() const { return "cuda"; }

LogicalResult
HIPTargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StringRef arch) {
  return verifyArch(emitError, arch, ::mlir::fw::TargetKind::HIP, "HIP");
}
StringRef HIPTargetAttr::getKindName() const { return "hip"; }

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

SmallVector<TargetAttrInterface> mlir::fw::getModuleTargets(ModuleOp module) {
  SmallVector<TargetAttrInterface> targets;
  if (auto list = module->getAttrOfType<ArrayAttr>(kTargetsAttrName)) {
    for (Attribute attr : list)
      if (auto target = dyn_cast<TargetAttrInterface>(attr))
        targets.push_back(target);
    return targets;
  }
  targets.push_back(
      CPUTargetAttr::get(module.getContext(), ::mlir::fw::getDefaultCpuArch()));
  return targets;
}

std::string mlir::fw::getCpuKernelSymbol(StringRef executable,
                                         StringRef variant) {
  return ("__fwk_" + executable + "_" + variant).str();
}

std::string mlir::fw::getHostEntrySymbol(StringRef name) {
  return ("__fw_entry_" + name).str();
}

std::optional<uint32_t> mlir::fw::getElementTypeCode(Type type) {
  if (type.isF32())
    return 1;
  if (type.isF16())
    return 2;
  if (type.isF64())
    return 3;
  if (type.isBF16())
    return 4;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.isUnsigned())
      return std::nullopt;
    switch (integer.getWidth()) {
    case 1:
      return 5;
    case 8:
      return 6;
    case 16:
      return 7;
    case 32:
      return 8;
    case 64:
      return 9;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

StringRef mlir::fw::getSupportedElementTypesString() {
  return "f32, f16, f64, bf16, i1, i8, i16, i32, i64";
}
