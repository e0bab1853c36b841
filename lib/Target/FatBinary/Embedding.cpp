//===- Embedding.cpp - Objects and headers for embedding modules ----------===//

#include "fw/Target/FatBinary/Embedding.h"

#include "fw/Dialect/FW/IR/FWOps.h"
#include "fw/Target/FatBinary/FatBinary.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace mlir;
using namespace mlir::fw;

bool mlir::fw::isValidModuleName(llvm::StringRef name) {
  if (name.empty() || llvm::isDigit(name.front()))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

llvm::Expected<llvm::SmallVector<char, 0>>
mlir::fw::emitEmbeddingObject(llvm::ArrayRef<char> fatBinary,
                              llvm::StringRef moduleName) {
  if (llvm::Error error = checkModuleName(moduleName))
    return std::move(error);
  llvm::LLVMContext ctx;
  llvm::Module module(("fw embedded module " + moduleName).str(), ctx);
  module.setTargetTriple(llvm::Triple("x86_64-unknown-linux-gnu"));
  auto *i8 = llvm::Type::getInt8Ty(ctx);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  std::string prefix = ("__fw_module_" + moduleName).str();

  // The fat binary, read-only.
  auto *bytes = llvm::ConstantDataArray::getRaw(
      llvm::StringRef(fatBinary.data(), fatBinary.size()), fatBinary.size(),
      i8);
  auto *data = new llvm::GlobalVariable(module, bytes->getType(), true,
                                        llvm::GlobalValue::InternalLinkage,
                                        bytes, prefix + "_data");
  data->setAlignment(llvm::Align(64));
  auto *nameConst = llvm::ConstantDataArray::getString(ctx, moduleName);
  auto *name = new llvm::GlobalVariable(module, nameConst->getType(), true,
                                        llvm::GlobalValue::PrivateLinkage,
                                        nameConst, prefix + "_name");

  // fw_embedded_module_t { uint32_t abi_version; const char *name;
  //                        const void *data; size_t size; next; }
  // A strong, exported symbol: a second module of the same name is a
  // duplicate definition the linker reports by this name.
  auto *recordType = llvm::StructType::get(ctx, {i32, ptr, ptr, i64, ptr});
  auto *record = new llvm::GlobalVariable(
      module, recordType, /*isConstant=*/false,
      llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantStruct::get(
          recordType, {llvm::ConstantInt::get(i32, kEmbeddingAbiVersion), name,
                       data, llvm::ConstantInt::get(i64, fatBinary.size()),
                       llvm::ConstantPointerNull::get(ptr)}),
      prefix);
  record->setAlignment(llvm::Align(8));
  // Hidden: a shared library that embeds a module neither exports it nor
  // binds to another library's module of the same name.
  record->setVisibility(llvm::GlobalValue::HiddenVisibility);

  // A function `name` that calls the runtime's `callee` on the record.
  auto emitRecordCall = [&](llvm::StringRef name, llvm::StringRef callee) {
    llvm::FunctionCallee target = module.getOrInsertFunction(
        callee, llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr},
                                        false));
    auto *fn = llvm::Function::Create(
        llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
        llvm::GlobalValue::InternalLinkage, name, module);
    llvm::IRBuilder<> builder(llvm::BasicBlock::Create(ctx, "entry", fn));
    builder.CreateCall(target, {record});
    builder.CreateRetVoid();
    return fn;
  };
  // Registered before main; unregistered when the program (or a shared
  // library holding the object) is unloaded.
  llvm::appendToGlobalCtors(
      module, emitRecordCall(prefix + "_register", "fw_embedded_module_register"),
      /*Priority=*/65535);
  llvm::appendToGlobalDtors(
      module,
      emitRecordCall(prefix + "_unregister", "fw_embedded_module_unregister"),
      /*Priority=*/65535);
  return emitObject(module);
}

llvm::Expected<llvm::SmallVector<char, 0>>
mlir::fw::emitStaticLibrary(llvm::ArrayRef<char> object,
                            llvm::StringRef moduleName) {
  std::string memberName = (moduleName + ".o").str();
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(object.data(), object.size()), memberName);
  std::vector<llvm::NewArchiveMember> members;
  members.emplace_back(buffer->getMemBufferRef());
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> archive =
      llvm::writeArchiveToBuffer(members, llvm::SymtabWritingMode::NormalSymtab,
                                 llvm::object::Archive::K_GNU,
                                 /*Deterministic=*/true, /*Thin=*/false);
  if (!archive)
    return archive.takeError();
  llvm::StringRef bytes = (*archive)->getBuffer();
  return llvm::SmallVector<char, 0>(bytes.begin(), bytes.end());
}

/// "4x?xf32" for comments.
static std::string describe(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto tensor = cast<RankedTensorType>(type);
  for (int64_t d : tensor.getShape())
    os << (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d))
       << "x";
  os << tensor.getElementType();
  return text;
}

/// C and C++ keywords (C++20 and C23), which generated code cannot use as names.
static bool isKeyword(llvm::StringRef name) {
  static const llvm::StringSet<> keywords = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
      "char32_t", "class", "compl", "concept", "const", "consteval",
      "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do",
      "double", "dynamic_cast", "else", "enum", "explicit", "export",
      "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "mutable", "namespace", "new", "noexcept", "not",
      "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected",
      "public", "register", "reinterpret_cast", "requires", "restrict",
      "return", "short", "signed", "sizeof", "static", "static_assert",
      "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "typeof",
      "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
      "while", "xor", "xor_eq", "_Alignas", "_Alignof", "_Atomic", "_Bool",
      "_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert",
      "_Thread_local"};
  return keywords.contains(name);
}

/// Names the generated C and C++ code defines itself for every module: the
/// C++ class `Module`, its members `load`, `module` and `handle_`.
static bool isReservedFunctionName(llvm::StringRef name) {
  return name == "load" || name == "module" || name == "Module" ||
         name == "handle_";
}

llvm::Error mlir::fw::checkModuleName(llvm::StringRef name) {
  if (!isValidModuleName(name))
    return llvm::createStringError("module name '" + name +
                                   "' is not a C identifier");
  if (isKeyword(name) || name == "fw" || name == "std" ||
      name.starts_with("fw_") || name.starts_with("__"))
    return llvm::createStringError(
        "module name '" + name +
        "' is reserved (a C/C++ keyword, 'fw', 'std', or a name starting with "
        "'fw_' or '__'); choose another with --module-name");
  return llvm::Error::success();
}

FailureOr<std::string> mlir::fw::emitEmbeddingHeader(ModuleOp module,
                                                     llvm::StringRef moduleName,
                                                     llvm::StringRef sourceName) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string guard = ("FW_MODULE_" + moduleName + "_H").str();
  os << "/* Generated by fwc from " << sourceName << ": module \"" << moduleName
     << "\". Do not edit.\n"
     << " *\n"
     << " * Link the object fwc wrote with this header and the fw runtime; the\n"
     << " * module registers itself before main. Load it with "
     << moduleName << "_load (C)\n"
     << " * or " << moduleName
     << "::Module::load (C++), then call its functions. Arguments are\n"
     << " * borrowed; each result is a new reference the caller releases. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <fw/runtime.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* The registration record in the module's object. */\n"
     << "extern fw_embedded_module_t __fw_module_" << moduleName << ";\n\n"
     << "/* Loads the module \"" << moduleName
     << "\" linked into this program. */\n"
     << "static inline fw_status_t " << moduleName
     << "_load(fw_runtime_t *runtime, fw_module_t **out_module) {\n"
     << "  return fw_module_load_embedded_record(runtime, &__fw_module_"
     << moduleName << ", out_module);\n}\n";

  struct Entry {
    std::string name;
    FunctionType type;
  };
  SmallVector<Entry> entries;
  for (Operation &op : *module.getBody()) {
    auto name = op.getAttrOfType<StringAttr>(kEntryNameAttrName);
    auto signature = op.getAttrOfType<TypeAttr>(kSignatureAttrName);
    if (!name || !signature)
      continue;
    auto type = dyn_cast<FunctionType>(signature.getValue());
    if (!type)
      return op.emitOpError("has a malformed '")
             << kSignatureAttrName << "' attribute";
    if (!isValidModuleName(name.getValue()))
      return op.emitOpError("function name '")
             << name.getValue()
             << "' is not a C identifier and cannot be embedded";
    if (isKeyword(name.getValue()) ||
        isReservedFunctionName(name.getValue()))
      return op.emitOpError("function name '")
             << name.getValue()
             << "' clashes with a keyword or with a name the generated header "
                "defines ('load', 'module', 'Module', 'handle_'); rename the "
                "function to embed it";
    entries.push_back({name.getValue().str(), type});
  }

  for (const Entry &e : entries) {
    unsigned numArgs = e.type.getNumInputs(), numResults = e.type.getNumResults();
    os << "\n/* @" << e.name << "(";
    llvm::interleaveComma(e.type.getInputs(), os,
                          [&](Type t) { os << describe(t); });
    os << ") -> (";
    llvm::interleaveComma(e.type.getResults(), os,
                          [&](Type t) { os << describe(t); });
    os << ") */\n"
       << "static inline fw_status_t " << moduleName << "_" << e.name
       << "(fw_module_t *module";
    for (unsigned i = 0; i < numArgs; ++i)
      os << ", fw_buffer_t *arg" << i;
    for (unsigned i = 0; i < numResults; ++i)
      os << ", fw_buffer_t **out_result" << i;
    os << ") {\n";
    for (unsigned i = 0; i < numResults; ++i)
      os << "  if (out_result" << i << ") *out_result" << i << " = 0;\n";
    os << "  size_t index = 0;\n"
       << "  fw_status_t status = fw_module_lookup_function(module, \""
       << e.name << "\", &index);\n"
       << "  if (status) return status;\n";
    os << "  fw_buffer_t *args[" << std::max(1u, numArgs) << "] = {";
    for (unsigned i = 0; i < numArgs; ++i)
      os << (i ? ", " : "") << "arg" << i;
    if (!numArgs)
      os << "0";
    os << "};\n"
       << "  fw_buffer_t *results[" << std::max(1u, numResults) << "] = {0};\n"
       << "  status = fw_module_call(module, index, args, " << numArgs
       << ", results, " << numResults << ");\n";
    for (unsigned i = 0; i < numResults; ++i)
      os << "  if (out_result" << i << ") *out_result" << i
         << " = results[" << i << "]; else fw_buffer_release(results[" << i
         << "]);\n";
    os << "  return status;\n}\n";
  }
  os << "\n#ifdef __cplusplus\n} /* extern \"C\" */\n\n"
     << "#include <fw/runtime.hpp>\n\n"
     << "namespace " << moduleName << " {\n\n"
     << "/* The module \"" << moduleName
     << "\" linked into this program, with one method per function. */\n"
     << "class Module {\npublic:\n"
     << "  static fw::Result<Module> load(fw::Runtime &runtime) {\n"
     << "    fw::Result<fw::Module> module =\n"
     << "        fw::Module::loadEmbedded(runtime, &__fw_module_" << moduleName
     << ");\n"
     << "    if (!module.ok()) return module.takeStatus();\n"
     << "    return Module(std::move(*module));\n  }\n";
  for (const Entry &e : entries) {
    unsigned numArgs = e.type.getNumInputs();
    os << "\n  /* @" << e.name << ": " << numArgs << " arguments, "
       << e.type.getNumResults() << " result(s), in order. */\n"
       << "  fw::Result<std::vector<fw::Buffer>> " << e.name << "(";
    for (unsigned i = 0; i < numArgs; ++i)
      os << (i ? ", " : "") << "const fw::Buffer &arg" << i;
    os << ") {\n    return handle_.call(\"" << e.name << "\", {";
    for (unsigned i = 0; i < numArgs; ++i)
      os << (i ? ", " : "") << "arg" << i;
    os << "});\n  }\n";
  }
  os << "\n  fw::Module &module() { return handle_; }\n\n"
     << "private:\n  explicit Module(fw::Module module) : handle_(std::move(module)) {}\n"
     << "  fw::Module handle_;\n};\n\n"
     << "} // namespace " << moduleName << "\n"
     << "#endif /* __cplusplus */\n\n#endif /* " << guard << " */\n";
  return text;
}
