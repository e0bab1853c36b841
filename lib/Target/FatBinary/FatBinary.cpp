//===- FatBinary.cpp - Emit fat binaries from lowered modules -------------===//

#include "fw/Target/FatBinary/FatBinary.h"

#include "fw/Dialect/FW/IR/FWOps.h"
#include "fw/Target/FatBinary/Metadata.h"
#include "fw/Target/FatBinary/OffloadImages.h"
#include "fw/Target/TargetDescription.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#ifndef FW_DEFAULT_LLD_PATH
#define FW_DEFAULT_LLD_PATH ""
#endif
#ifndef FW_DEFAULT_BUILTINS_PATH
#define FW_DEFAULT_BUILTINS_PATH ""
#endif

using namespace mlir;
using namespace mlir::fw;

static constexpr llvm::StringLiteral kHostTriple = "x86_64-unknown-linux-gnu";
static constexpr llvm::StringLiteral kHostCpu = "x86-64";

/// Removes fw attributes that have no meaning in LLVM IR.
static void stripFwAttributes(Operation *root) {
  root->walk([](Operation *op) {
    SmallVector<StringAttr> names;
    for (NamedAttribute attr : op->getDiscardableAttrs())
      if (attr.getName().getValue().starts_with("fw."))
        names.push_back(attr.getName());
    for (StringAttr name : names)
      op->removeAttr(name);
  });
}

/// Translates a module in the LLVM dialect; `tag` names it in diagnostics.
static FailureOr<std::unique_ptr<llvm::Module>>
translate(ModuleOp module, llvm::LLVMContext &llvmContext, StringRef tag) {
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> result =
      translateModuleToLLVMIR(module, llvmContext, tag);
  if (!result)
    return module.emitError("could not translate ") << tag << " to LLVM IR";
  return result;
}

/// Sets the CPU of every function, and the width LLVM's vectorizers aim for:
/// the target's full vector registers (LLVM otherwise stays at 256 bits on
/// AVX-512 targets).
static void setTargetAttributes(llvm::Module &llvmModule, StringRef cpu,
                                unsigned vectorBits = 0) {
  for (llvm::Function &f : llvmModule) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("target-cpu", cpu);
    if (vectorBits)
      f.addFnAttr("prefer-vector-width", std::to_string(vectorBits));
  }
}

static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(kHostTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("no x86-64 backend in LLVM: " + error);
  llvm::TargetOptions options;
  // Constructors in .init_array, which every linker (ld.lld included) runs.
  options.UseInitArray = true;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, kHostCpu, "", options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    return llvm::createStringError("could not create an x86-64 target machine");
  return tm;
}

static void optimize(llvm::Module &llvmModule, llvm::TargetMachine &tm,
                     unsigned optLevel) {
  if (optLevel == 0)
    return;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel >= 2;
  tuning.SLPVectorization = optLevel >= 2;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel == 1   ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(level);
  mpm.run(llvmModule, mam);
}

FailureOr<std::unique_ptr<llvm::Module>>
mlir::fw::translateToLLVMIR(ModuleOp module, llvm::LLVMContext &llvmContext,
                            const FatBinaryOptions &options) {
  // Device images, laid out once: the metadata table points at them by offset
  // in the .llvm.offloading section built from the same layout below.
  OffloadSection offload = buildOffloadSection(module);
  FailureOr<std::string> metadata =
      buildMetadataTable(module, options.moduleName, options.sourceId, offload);
  if (failed(metadata))
    return failure();

  // Host side: the module without its executables.
  OwningOpRef<ModuleOp> host = cast<ModuleOp>(module->clone());
  for (auto exe : llvm::to_vector(host->getOps<ExecutableOp>()))
    exe.erase();
  stripFwAttributes(*host); // The walk includes the module itself.
  FailureOr<std::unique_ptr<llvm::Module>> result =
      translate(*host, llvmContext, "host code");
  if (failed(result))
    return failure();
  llvm::Module &llvmModule = **result;
  llvmModule.setTargetTriple(llvm::Triple(kHostTriple));
  setTargetAttributes(llvmModule, kHostCpu);

  // CPU kernels, one LLVM module per variant, linked into the host module.
  llvm::Linker linker(llvmModule);
  for (auto exe : module.getOps<ExecutableOp>()) {
    for (auto variant : exe.getOps<VariantOp>()) {
      if (isa<CUDATargetAttr, HIPTargetAttr>(variant.getTarget()))
        continue; // a device image, in .llvm.offloading below
      auto target = dyn_cast<CPUTargetAttr>(variant.getTarget());
      if (!target)
        return variant.emitOpError("has a target this compiler cannot emit "
                                   "yet: ")
               << variant.getTarget();
      OwningOpRef<ModuleOp> kernel =
          cast<ModuleOp>(variant.getInnerModule()->clone());
      stripFwAttributes(*kernel);
      FailureOr<std::unique_ptr<llvm::Module>> kernelModule = translate(
          *kernel, llvmContext,
          (exe.getSymName() + "@" + variant.getSymName()).str());
      if (failed(kernelModule))
        return failure();
      (*kernelModule)->setTargetTriple(llvm::Triple(kHostTriple));
      const TargetDescription *desc = lookupTarget(target.getArch());
      setTargetAttributes(**kernelModule, desc->llvmCpu, desc->vectorBits);
      if (linker.linkInModule(std::move(*kernelModule)))
        return variant.emitOpError("could not link its kernel into the "
                                   "module (duplicate symbols?)");
    }
  }

  // The metadata table, kept by llvm.used.
  auto *bytes = llvm::ConstantDataArray::getRaw(
      *metadata, metadata->size(), llvm::Type::getInt8Ty(llvmContext));
  auto *global = new llvm::GlobalVariable(
      llvmModule, bytes->getType(), /*isConstant=*/true,
      llvm::GlobalValue::PrivateLinkage, bytes, "__fw_metadata");
  global->setSection(".fw.meta");
  global->setAlignment(llvm::Align(8));
  llvm::appendToUsed(llvmModule, {global});

  // Device images, one LLVM OffloadBinary each.
  if (!offload.images.empty()) {
    auto *images = llvm::ConstantDataArray::getRaw(
        offload.bytes, offload.bytes.size(),
        llvm::Type::getInt8Ty(llvmContext));
    auto *section = new llvm::GlobalVariable(
        llvmModule, images->getType(), /*isConstant=*/true,
        llvm::GlobalValue::PrivateLinkage, images, "__fw_device_images");
    section->setSection(".llvm.offloading");
    section->setAlignment(llvm::Align(8));
    llvm::appendToUsed(llvmModule, {section});
  }

  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm =
      createTargetMachine();
  if (!tm)
    return module.emitError(llvm::toString(tm.takeError()));
  llvmModule.setDataLayout((*tm)->createDataLayout());
  optimize(llvmModule, **tm, options.optLevel);
  return result;
}

llvm::Expected<llvm::SmallVector<char, 0>>
mlir::fw::emitObject(llvm::Module &llvmModule) {
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm =
      createTargetMachine();
  if (!tm)
    return tm.takeError();
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, os, nullptr,
                                 llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the x86-64 backend cannot emit objects");
  pm.run(llvmModule);
  return object;
}

/// Finds ld.lld: the explicit path, the one next to the LLVM fw was built
/// with, or ld.lld on PATH.
static llvm::Expected<std::string> findLinker(StringRef explicitPath) {
  if (!explicitPath.empty()) {
    if (!llvm::sys::fs::can_execute(explicitPath))
      return llvm::createStringError("linker '" + explicitPath +
                                     "' is not an executable file");
    return explicitPath.str();
  }
  StringRef builtin = FW_DEFAULT_LLD_PATH;
  if (!builtin.empty() && llvm::sys::fs::can_execute(builtin))
    return builtin.str();
  if (llvm::ErrorOr<std::string> onPath =
          llvm::sys::findProgramByName("ld.lld"))
    return *onPath;
  return llvm::createStringError(
      "cannot find ld.lld; install lld or pass --ld-path");
}

llvm::Expected<llvm::SmallVector<char, 0>>
mlir::fw::linkFatBinary(llvm::ArrayRef<char> object,
                        const FatBinaryOptions &options) {
  llvm::Expected<std::string> linker = findLinker(options.linkerPath);
  if (!linker)
    return linker.takeError();

  llvm::SmallString<128> objectPath, outputPath, logPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("fwc", "o", objectPath))
    return llvm::createStringError(ec, "cannot create a temporary file");
  llvm::FileRemover removeObject(objectPath);
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("fwc", "so", outputPath))
    return llvm::createStringError(ec, "cannot create a temporary file");
  llvm::FileRemover removeOutput(outputPath);
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("fwc", "log", logPath))
    return llvm::createStringError(ec, "cannot create a temporary file");
  llvm::FileRemover removeLog(logPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objectPath, ec);
    if (ec)
      return llvm::createStringError(ec, "cannot write " + objectPath);
    os.write(object.data(), object.size());
  }

  llvm::SmallVector<llvm::StringRef> args = {
      *linker, "-shared", "--eh-frame-hdr", "-z", "relro", "-z", "now",
      "-z", "noexecstack", "--hash-style=gnu", "-o", outputPath, objectPath};
  // compiler-rt's builtins (half and bfloat conversions, ...) are linked in
  // statically, as clang does, so the fat binary needs nothing at load time
  // beyond libm and libc.
  StringRef builtins = options.builtinsPath.empty()
                           ? StringRef(FW_DEFAULT_BUILTINS_PATH)
                           : StringRef(options.builtinsPath);
  if (!builtins.empty()) {
    if (!llvm::sys::fs::exists(builtins))
      return llvm::createStringError("compiler-rt builtins '" + builtins +
                                     "' not found");
    args.push_back(builtins);
  }
  for (StringRef arg : {"-L/lib/x86_64-linux-gnu", "-L/usr/lib/x86_64-linux-gnu",
                        "-lm", "-lc"})
    args.push_back(arg);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(),
                                                logPath.str()};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(*linker, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &error);
  if (rc != 0) {
    std::string log;
    if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
      log = (*buffer)->getBuffer().trim().str();
    return llvm::createStringError(
        "linking with " + *linker + " failed" +
        (error.empty() ? "" : ": " + error) + (log.empty() ? "" : "\n" + log));
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> linked =
      llvm::MemoryBuffer::getFile(outputPath);
  if (!linked)
    return llvm::createStringError(linked.getError(),
                                   "cannot read the linked fat binary");
  StringRef data = (*linked)->getBuffer();
  llvm::SmallVector<char, 0> result(data.begin(), data.end());
  appendTrailer(result);
  return result;
}

void mlir::fw::appendTrailer(llvm::SmallVectorImpl<char> &payload) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : payload) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001b3ULL;
  }
  uint64_t size = payload.size();
  char trailer[32] = {};
  std::memcpy(trailer, "FWBTRAIL", 8);
  llvm::support::endian::write32le(trailer + 8, 1);
  llvm::support::endian::write32le(trailer + 12, 0);
  llvm::support::endian::write64le(trailer + 16, size);
  llvm::support::endian::write64le(trailer + 24, hash);
  payload.append(trailer, trailer + 32);
}
