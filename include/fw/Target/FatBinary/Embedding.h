//===- Embedding.h - Objects and headers for embedding modules --*- C++ -*-===//
//
// For programs that link a compiled module instead of loading a .fwb file:
// a relocatable object that carries the whole fat binary and registers it
// with the runtime before main (like clang's offload wrapper), and a C/C++
// header with typed entry points.
//
//===----------------------------------------------------------------------===//

#ifndef FW_TARGET_FATBINARY_EMBEDDING_H
#define FW_TARGET_FATBINARY_EMBEDDING_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::fw {

/// Version of the registration record (fw_embedded_module_t) the object
/// passes to the runtime.
constexpr uint32_t kEmbeddingAbiVersion = 1;

/// True when `name` is a C identifier.
bool isValidModuleName(llvm::StringRef name);

/// Checks that `name` can name an embedded module: a C identifier that is no
/// C/C++ keyword and does not collide with the runtime's names.
llvm::Error checkModuleName(llvm::StringRef name);

/// Builds a relocatable x86-64 object holding `fatBinary` and a static
/// constructor that registers it as module `moduleName` (symbol
/// `__fw_module_<name>`: two modules with one name fail to link).
llvm::Expected<llvm::SmallVector<char, 0>>
emitEmbeddingObject(llvm::ArrayRef<char> fatBinary, llvm::StringRef moduleName);

/// Wraps `object` in a static archive (`ar` format) as member `<name>.o`.
llvm::Expected<llvm::SmallVector<char, 0>>
emitStaticLibrary(llvm::ArrayRef<char> object, llvm::StringRef moduleName);

/// Writes the C header (typed entry points) and its C++ wrapper for the
/// public functions of `module` (lowered through the `host` phase).
FailureOr<std::string> emitEmbeddingHeader(ModuleOp module,
                                           llvm::StringRef moduleName,
                                           llvm::StringRef sourceName);

} // namespace mlir::fw

#endif // FW_TARGET_FATBINARY_EMBEDDING_H
