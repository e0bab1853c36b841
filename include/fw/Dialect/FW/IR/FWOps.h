//===- FWOps.h - fw attributes, types and operations ------------*- C++ -*-===//

#ifndef FW_DIALECT_FW_IR_FWOPS_H
#define FW_DIALECT_FW_IR_FWOPS_H

#include "fw/Dialect/FW/IR/FWDialect.h"
#include "fw/Target/TargetDescription.h"
#include "fw/Target/TuningConfig.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

#include "fw/Dialect/FW/IR/FWEnums.h.inc"
#include "fw/Dialect/FW/IR/FWAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fw/Dialect/FW/IR/FWAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "fw/Dialect/FW/IR/FWTypes.h.inc"

#define GET_OP_CLASSES
#include "fw/Dialect/FW/IR/FWOps.h.inc"

namespace mlir::fw {

/// A symbol-safe name for a variant of `target`: `cpu_x86_64_v3`, `cuda_sm_90`.
std::string getVariantName(TargetAttrInterface target);

/// Name of the executable attribute that marks its CPU variants as candidates
/// the runtime measures (fwc --autotune).
constexpr llvm::StringLiteral kAutotuneAttrName = "fw.autotune";

/// Name of the module attribute listing the targets to compile for.
constexpr llvm::StringLiteral kTargetsAttrName = "fw.targets";
/// Name of the function attribute holding a host entry's tensor signature.
constexpr llvm::StringLiteral kSignatureAttrName = "fw.signature";
/// Name of the executable attribute holding its index in the runtime's
/// executable table (set by convert-fw-host-to-runtime).
constexpr llvm::StringLiteral kOrdinalAttrName = "fw.ordinal";
/// Name of the function attribute holding a host entry's source name.
constexpr llvm::StringLiteral kEntryNameAttrName = "fw.entry_name";
/// Name of the module attribute holding the host-call ABI version its host
/// code needs (set by convert-fw-host-to-runtime when it needs more than 1;
/// the fat binary's metadata records it, so that a runtime of an older
/// version still loads modules that need nothing newer).
constexpr llvm::StringLiteral kHostAbiAttrName = "fw.host_abi";
/// Name of the executable attribute saying that a dispatch binds one buffer
/// to two of its bindings, an input its kernel updates in place (set by
/// fw-reuse-buffers); the bindings of other executables never overlap where
/// one of them is written.
constexpr llvm::StringLiteral kInPlaceAttrName = "fw.in_place";
/// Name of the attribute of a CPU kernel that allocates buffers of its own:
/// what its error word records when the machine refuses one (set by
/// fw-kernel-error-word, used by fw-cpu-allocation-checks).
constexpr llvm::StringLiteral kAllocationCheckAttrName = "fw.allocation_check";
/// Name of the attribute of a CPU kernel that runs a GPU kernel's mapping on an
/// emulated grid (fw-test-gpu-mapping-on-cpu): its threads' loops end as the
/// mapping made them (fw-cpu-stop-at-failed-checks leaves it alone).
constexpr llvm::StringLiteral kEmulatedGPUAttrName = "fw.emulated_gpu";

/// The most dims one term of `flops_terms` multiplies (the fat binary's
/// fwmd_cost_term_t holds that many).
constexpr unsigned kMaxFlopsTermFactors = 8;

/// Returns the targets requested on `module` (the `fw.targets` attribute), or
/// the default CPU target when there is none.
SmallVector<TargetAttrInterface> getModuleTargets(ModuleOp module);

/// Returns the symbol of the CPU kernel entry of `variant` in `executable`,
/// the name the fat binary's metadata records and the runtime looks up.
std::string getCpuKernelSymbol(StringRef executable, StringRef variant);

/// Returns the symbol of the host entry of the public function `name`.
std::string getHostEntrySymbol(StringRef name);

/// Returns the runtime's element type code of `type` (fw_element_type_t in
/// docs/runtime.md), or std::nullopt when the runtime cannot hold it.
std::optional<uint32_t> getElementTypeCode(Type type);

/// The element types the runtime supports, for diagnostics.
StringRef getSupportedElementTypesString();

} // namespace mlir::fw

#endif // FW_DIALECT_FW_IR_FWOPS_H
