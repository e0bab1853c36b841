//===- FatBinary.h - Emit fat binaries from lowered modules -----*- C++ -*-===//
//
// Turns a module lowered by the fwc pipeline into LLVM IR, an object file or
// a complete fat binary (docs/fat-binary.md): a shared object linked by
// ld.lld holding the host entries, the CPU kernels and the .fw.meta table,
// followed by a checksummed trailer.
//
//===----------------------------------------------------------------------===//

#ifndef FW_TARGET_FATBINARY_FATBINARY_H
#define FW_TARGET_FATBINARY_FATBINARY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace mlir::fw {

struct FatBinaryOptions {
  /// Name recorded in the metadata (`fw-run --list` shows it).
  std::string moduleName = "module";
  /// Identity of the source program (FNV-1a of fwc's input), recorded in the
  /// metadata: profiles name it, so that a profile-guided build of the same
  /// source recognizes them. 0: unknown.
  uint64_t sourceId = 0;
  /// LLVM optimization level for host code and kernels (0-3).
  unsigned optLevel = 3;
  /// The linker; empty means the ld.lld of the LLVM fw was built with, then
  /// `ld.lld` on PATH.
  std::string linkerPath;
  /// compiler-rt's builtins archive; empty means the one of the LLVM fw was
  /// built with.
  std::string builtinsPath;
};

/// Translates the host side and every CPU variant of `module` (lowered to the
/// LLVM dialect) into one LLVM module with the metadata table in `.fw.meta`,
/// optimized at `options.optLevel`. Diagnostics go to the module's context.
FailureOr<std::unique_ptr<llvm::Module>>
translateToLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                  const FatBinaryOptions &options);

/// Compiles `llvmModule` to a relocatable x86-64 ELF object.
llvm::Expected<llvm::SmallVector<char, 0>>
emitObject(llvm::Module &llvmModule);

/// Links `object` into a shared object with ld.lld and appends the fat
/// binary trailer.
llvm::Expected<llvm::SmallVector<char, 0>>
linkFatBinary(llvm::ArrayRef<char> object, const FatBinaryOptions &options);

/// Appends the 32-byte trailer (magic, version, payload size, FNV-1a 64).
void appendTrailer(llvm::SmallVectorImpl<char> &payload);

} // namespace mlir::fw

#endif // FW_TARGET_FATBINARY_FATBINARY_H
