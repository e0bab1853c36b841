//===- fwc.cpp - The fw ahead-of-time compiler ----------------------------===//
//
//   fwc model.mlir -o model.fwb [--targets=cpu] [--compile-to=<phase>]
//       [--emit=fwb|mlir|llvm|obj]
//
// Parses flags, runs the fwc pipeline (a library) and writes the result.
// Every failure is a diagnostic and exit code 1.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/IR/FWOps.h"
#include "fw/Pipelines/Pipelines.h"
#include "fw/Target/FatBinary/Embedding.h"
#include "fw/Target/FatBinary/FatBinary.h"
#include "fw/Target/TargetDescription.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Remark/RemarkStreamer.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdint>
#include <pthread.h>
#include <unistd.h>

using namespace mlir;

namespace {

struct Flags {
  std::string input;
  std::string output;
  std::string targets = "cpu";
  std::string compileTo;
  std::string emit = "fwb";
  bool emitGiven = false; // --emit was on the command line
  std::string moduleName;
  std::string ldPath;
  std::string cudaPath = "/usr/local/cuda";
  std::string rocmPath;
  bool testGpuMappingOnCpu = false;
  std::string testGpuKnobs;
  std::string header;
  unsigned optLevel = 3;
  bool printIRAfterAll = false;
  bool stats = false;
  std::string profileUse;
  unsigned autotune = 1;
  std::string remarks;
};

int fail(const llvm::Twine &message) {
  llvm::errs() << "fwc: error: " << message << "\n";
  return 1;
}

std::string supportedTargets() {
  std::string names = "cpu";
  for (const fw::TargetDescription &t : fw::getTargetDescriptions())
    names += ", " + t.arch.str();
  return names + ", cuda, rocm";
}

/// Resolves --targets into target attributes.
FailureOr<SmallVector<Attribute>> parseTargets(MLIRContext *ctx,
                                               StringRef spec) {
  llvm::SetVector<Attribute> targets;
  SmallVector<StringRef> names;
  spec.split(names, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  if (names.empty()) {
    fail("--targets is empty; supported targets: " + supportedTargets());
    return failure();
  }
  for (StringRef raw : names) {
    StringRef name = raw.trim();
    if (name == "cpu")
      name = fw::getDefaultCpuArch();
    // `cuda` is every NVIDIA architecture fwc knows.
    if (name == "cuda") {
      for (const fw::TargetDescription &t : fw::getTargetDescriptions())
        if (t.kind == fw::TargetKind::CUDA)
          targets.insert(fw::CUDATargetAttr::get(ctx, t.arch));
      continue;
    }
    // `rocm` is every AMD architecture fwc knows.
    if (name == "rocm") {
      for (const fw::TargetDescription &t : fw::getTargetDescriptions())
        if (t.kind == fw::TargetKind::HIP)
          targets.insert(fw::HIPTargetAttr::get(ctx, t.arch));
      continue;
    }
    const fw::TargetDescription *desc = fw::lookupTarget(name);
    if (!desc) {
      fail("unknown target '" + name +
           "'; supported targets: " + supportedTargets());
      return failure();
    }
    if (desc->kind == fw::TargetKind::HIP) {
      targets.insert(fw::HIPTargetAttr::get(ctx, desc->arch));
      continue;
    }
    if (desc->kind == fw::TargetKind::CUDA)
      targets.insert(fw::CUDATargetAttr::get(ctx, desc->arch));
    else
      targets.insert(fw::CPUTargetAttr::get(ctx, desc->arch));
  }
  return SmallVector<Attribute>(targets.begin(), targets.end());
}

/// Writes `data` to `path` ("-" is stdout) only when everything succeeded.
int writeOutput(StringRef path, StringRef data) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return fail(error);
  file->os() << data;
  file->os().flush();
  if (file->os().has_error()) {
    file->os().clear_error(); // reported here, not again as it closes
    return fail("cannot write '" + path + "'");
  }
  file->keep();
  return 0;
}

int compile(const Flags &flags, bool &reportedError) {
  std::optional<fw::Phase> phase = fw::Phase::LLVM;
  if (!flags.compileTo.empty()) {
    phase = fw::parsePhase(flags.compileTo);
    if (!phase)
      return fail("unknown phase '" + flags.compileTo +
                  "' for --compile-to; phases: " + fw::getPhaseNames());
  }
  StringRef emit = flags.emit;
  if (emit == "object")
    emit = "obj";
  if (emit != "fwb" && emit != "mlir" && emit != "llvm" && emit != "obj" &&
      emit != "static-lib")
    return fail("unknown --emit kind '" + emit +
                "'; expected fwb, mlir, llvm, obj (or object) or static-lib");
  // --compile-to prints the IR of its phase unless --emit asks for
  // something else, which only the last phase can give.
  if (!flags.compileTo.empty() && emit != "mlir") {
    if (flags.emitGiven && *phase != fw::Phase::LLVM)
      return fail("--compile-to stops the pipeline early; use it with "
                  "--emit=mlir");
    if (!flags.emitGiven)
      emit = "mlir";
  }
  if (flags.optLevel > 3)
    return fail("-O" + llvm::Twine(flags.optLevel) +
                " is not an optimization level; use -O0 to -O3");

  DialectRegistry registry;
  fw::registerFwDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name the problem and its location; no IR dumps.
  context.printOpOnDiagnostic(false);

  FailureOr<SmallVector<Attribute>> targets =
      parseTargets(&context, flags.targets);
  if (failed(targets))
    return 1;

  // A device (/dev/zero, a terminal) never ends or is no source: refused
  // before it is read (pipes and FIFOs are read to their end).
  llvm::sys::fs::file_status inputStatus;
  if (flags.input != "-" && !llvm::sys::fs::status(flags.input, inputStatus) &&
      (inputStatus.type() == llvm::sys::fs::file_type::character_file ||
       inputStatus.type() == llvm::sys::fs::file_type::block_file))
    return fail("'" + flags.input + "' is a device, not a file");
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(flags.input, &error);
  if (!input)
    return fail(error);
  if (input->getBufferSize() == 0)
    return fail("'" + flags.input + "' is empty; expected an MLIR module");
  // The source's identity for profiles (FNV-1a of the input).
  uint64_t sourceId = 1469598103934665603ull;
  for (char c : input->getBuffer())
    sourceId = (sourceId ^ static_cast<unsigned char>(c)) * 1099511628211ull;

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  // Runs before the printing handler; remembers that an error was reported.
  context.getDiagEngine().registerHandler([&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      reportedError = true;
    return failure();
  });

  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  // Entry points are the top level's functions: one in a nested module would
  // be left out unseen.
  for (auto nested : module->getOps<ModuleOp>()) {
    bool functions = false;
    nested.walk([&](func::FuncOp) { functions = true; });
    if (!functions)
      continue;
    nested.emitError("nested modules are not compiled; put their functions "
                     "at the top level");
    return 1;
  }
  bool hasEntry = llvm::any_of(
      module->getOps<func::FuncOp>(), [](func::FuncOp f) {
        return f.isPublic() && !f.isDeclaration();
      });
  if (!hasEntry)
    return fail("'" + flags.input +
                "' defines no public function with a body; there is nothing "
                "to compile");
  (*module)->setAttr(fw::kTargetsAttrName, ArrayAttr::get(&context, *targets));

  PassManager pm(&context);
  if (flags.printIRAfterAll) {
    context.disableMultithreading();
    pm.enableIRPrinting();
  }
  // The remarks go to a file of fwc's own first, and to --remarks once the
  // pipeline ran: a --remarks path that cannot be written is then an error
  // before any output is written (MLIR's streamer would abort as it closed).
  llvm::SmallString<128> remarksTemp;
  std::optional<llvm::FileRemover> removeRemarksTemp;
  if (!flags.remarks.empty()) {
    // Beside the remarks' path when that is a file to be made or replaced
    // (and its directory takes one more), else in the temporary directory
    // (stdout, /dev/stderr, a file in a directory it cannot write).
    std::error_code ec = std::make_error_code(std::errc::not_supported);
    if (flags.remarks != "-" &&
        (!llvm::sys::fs::exists(flags.remarks) ||
         llvm::sys::fs::is_regular_file(flags.remarks)))
      ec = llvm::sys::fs::createUniqueFile(flags.remarks + ".%%%%%%.tmp",
                                           remarksTemp);
    if (ec)
      ec = llvm::sys::fs::createTemporaryFile("fwc-remarks", "yaml",
                                              remarksTemp);
    if (ec)
      return fail("cannot write remarks to '" + flags.remarks +
                  "': " + ec.message());
    removeRemarksTemp.emplace(remarksTemp);
    remark::RemarkCategories categories;
    categories.all = categories.passed = categories.missed =
        categories.analysis = categories.failed = ".*";
    if (failed(remark::enableOptimizationRemarksWithLLVMStreamer(
            context, remarksTemp, llvm::remarks::Format::YAML,
            std::make_unique<remark::RemarkEmittingPolicyAll>(), categories)))
      return fail("cannot write remarks to '" + flags.remarks + "'");
  }
  fw::FwcOptions options;
  options.compileTo = *phase;
  options.profileUse = flags.profileUse;
  options.sourceId = llvm::formatv("{0:x16}", sourceId).str();
  options.autotune = flags.autotune;
  options.optLevel = flags.optLevel;
  options.cudaPath = flags.cudaPath;
  options.rocmPath = flags.rocmPath;
  options.testGpuMappingOnCpu = flags.testGpuMappingOnCpu;
  options.testGpuKnobs = flags.testGpuKnobs;
  options.reportMemory = flags.stats;
  fw::buildFwcPipeline(pm, options);
  bool compiled = succeeded(pm.run(*module));
  if (!flags.remarks.empty()) {
    context.setRemarkEngine(nullptr); // closes the temporary file
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> remarks =
        llvm::MemoryBuffer::getFile(remarksTemp);
    if (!remarks)
      return fail("cannot read back the remarks: " +
                  remarks.getError().message());
    if (int rc = writeOutput(flags.remarks, (*remarks)->getBuffer()))
      return rc;
  }
  if (!compiled)
    return 1;

  std::string output = flags.output;
  std::string stem = llvm::sys::path::stem(flags.input).str();
  if (flags.input == "-")
    stem = "module";
  if (output.empty())
    output = emit == "fwb"          ? stem + ".fwb"
             : emit == "obj"        ? stem + ".o"
             : emit == "static-lib" ? "lib" + stem + ".a"
                                    : "-";

  if (emit == "mlir") {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return writeOutput(output, text);
  }

  fw::FatBinaryOptions fatOptions;
  fatOptions.moduleName = flags.moduleName.empty() ? stem : flags.moduleName;
  fatOptions.sourceId = sourceId;
  bool embedding = emit == "obj" || emit == "static-lib";
  if (embedding)
    if (llvm::Error error = fw::checkModuleName(fatOptions.moduleName))
      return fail(llvm::toString(std::move(error)) +
                  (flags.moduleName.empty() ? " (from the input's name)" : ""));
  std::string headerText;
  if (embedding) {
    FailureOr<std::string> header =
        fw::emitEmbeddingHeader(*module, fatOptions.moduleName,
                                llvm::sys::path::filename(flags.input));
    if (failed(header))
      return 1;
    headerText = std::move(*header);
  }
  fatOptions.optLevel = flags.optLevel;
  fatOptions.linkerPath = flags.ldPath;
  llvm::LLVMContext llvmContext;
  FailureOr<std::unique_ptr<llvm::Module>> llvmModule =
      fw::translateToLLVMIR(*module, llvmContext, fatOptions);
  if (failed(llvmModule))
    return 1;
  if (emit == "llvm") {
    std::string text;
    llvm::raw_string_ostream os(text);
    (*llvmModule)->print(os, nullptr);
    return writeOutput(output, text);
  }
  llvm::Expected<llvm::SmallVector<char, 0>> object =
      fw::emitObject(**llvmModule);
  if (!object)
    return fail(llvm::toString(object.takeError()));
  llvm::Expected<llvm::SmallVector<char, 0>> fatBinary =
      fw::linkFatBinary(*object, fatOptions);
  if (!fatBinary)
    return fail(llvm::toString(fatBinary.takeError()));
  if (!embedding)
    return writeOutput(output,
                       StringRef(fatBinary->data(), fatBinary->size()));

  // An object (or archive) that carries the fat binary, and its header.
  llvm::Expected<llvm::SmallVector<char, 0>> embedded =
      fw::emitEmbeddingObject(*fatBinary, fatOptions.moduleName);
  if (embedded && emit == "static-lib")
    embedded = fw::emitStaticLibrary(*embedded, fatOptions.moduleName);
  if (!embedded)
    return fail(llvm::toString(embedded.takeError()));
  std::string headerPath = flags.header;
  if (headerPath.empty()) {
    if (output == "-")
      return fail("--emit=" + emit.str() + " to stdout needs --header=PATH");
    llvm::SmallString<128> path(output);
    llvm::sys::path::replace_extension(path, "h");
    headerPath = path.str().str();
  }
  if (int rc = writeOutput(headerPath, headerText))
    return rc;
  return writeOutput(output, StringRef(embedded->data(), embedded->size()));
}

} // namespace

/// Input nested too deeply for the parser or a pass exhausts the stack: that
/// is reported as an error, not a segmentation fault. SIGSEGV runs on a stack
/// of its own; a fault just below the main thread's stack prints a message
/// and exits with 1, any other goes on to the handler installed before
/// (CrashRecoveryContext's, which recovers from the compiler's crashes).
namespace stack_guard {
struct sigaction previous;
uintptr_t stackLow = 0;

void onFault(int sig, siginfo_t *info, void *context) {
  auto at = reinterpret_cast<uintptr_t>(info->si_addr);
  constexpr uintptr_t kSlack = 1u << 20;
  if (stackLow && at < stackLow + kSlack && at + kSlack >= stackLow) {
    static const char kMessage[] =
        "fwc: error: the input is nested too deeply (the compiler ran out of "
        "stack)\n";
    ssize_t written = write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
    (void)written;
    _exit(1);
  }
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  } else {
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

void install() {
  pthread_attr_t attr;
  void *addr = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return;
  int got = pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  if (got != 0)
    return;
  static char altStack[1 << 16];
  stack_t alt = {};
  alt.ss_sp = altStack;
  alt.ss_size = sizeof(altStack);
  if (sigaltstack(&alt, nullptr) != 0)
    return;
  stackLow = reinterpret_cast<uintptr_t>(addr);
  struct sigaction action = {};
  action.sa_sigaction = onFault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &previous);
}
} // namespace stack_guard

int main(int argc, char **argv) {
  Flags flags;
  CLI::App app{"fwc: compiles linalg-on-tensors MLIR ahead of time into an fw "
               "fat binary"};
  app.add_option("input", flags.input, "Input MLIR file ('-' for stdin)")
      ->required();
  app.add_option("-o,--output", flags.output,
                 "Output file (default: <input>.fwb, or stdout for text)");
  app.add_option("--targets", flags.targets,
                 "Comma-separated targets: cpu (= x86-64-v3), x86-64, "
                 "x86-64-v2, x86-64-v3, x86-64-v4, sm_80, sm_90, cuda (= "
                 "sm_80,sm_90), gfx90a, gfx942, rocm (= gfx90a,gfx942); the "
                 "last one given wins")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--compile-to", flags.compileTo,
                 "Stop after a phase and print the IR: input, tasks, "
                 "executables, buffers, host, llvm");
  app.add_option("--emit", flags.emit,
                 "What to write: fwb (fat binary), mlir, llvm (LLVM IR), obj "
                 "or object (relocatable object embedding the module, plus a "
                 "header), static-lib (the same as an archive)")
      ->capture_default_str();
  app.add_option("--header", flags.header,
                 "Header to write with --emit=obj|static-lib (default: the "
                 "output with extension .h)");
  app.add_option("--module-name", flags.moduleName,
                 "Module name recorded in the fat binary and used to embed it "
                 "(a C identifier; default: the input file's stem)");
  app.add_option("--ld-path", flags.ldPath, "Path of ld.lld");
  app.add_option("--cuda-path", flags.cudaPath,
                 "CUDA toolkit whose ptxas assembles cubins for sm_* targets")
      ->capture_default_str();
  app.add_flag("--test-gpu-mapping-on-cpu", flags.testGpuMappingOnCpu,
               "For tests: CPU kernels run their GPU mapping on an emulated grid");
  app.add_option("--test-gpu-knobs", flags.testGpuKnobs,
                 "For tests: the GPU knobs (block=512, tile_m=128, ...) of "
                 "--test-gpu-mapping-on-cpu")
      ->needs("--test-gpu-mapping-on-cpu");
  app.add_option("--rocm-path", flags.rocmPath,
                 "ROCm installation whose device libraries (amdgcn/bitcode) and "
                 "llvm/bin/ld.lld build gfx* code objects (default: Debian's "
                 "rocm-device-libs and LLVM's ld.lld)");
  app.add_option("-O", flags.optLevel,
                 "Optimization level, 0-3: -O0 keeps one task per operation "
                 "and no fusion, for debugging (the last one given counts)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--stats", flags.stats,
               "Report, per function, the peak memory it allocates before "
               "and after buffer reuse");
  app.add_option("--profile-use", flags.profileUse,
                 "Profile of earlier runs (fw-run --profile-out) that guides "
                 "placement, task granularity, priorities and kernel variants");
  app.add_option("--autotune", flags.autotune,
                 "Candidate CPU variants per hot task (1-8) for the runtime to "
                 "measure and choose among; 1: none")
      ->check(CLI::Range(1, 8))
      ->capture_default_str();
  app.add_option("--remarks", flags.remarks,
                 "Write the optimization remarks (profile-guided and "
                 "autotuning decisions) to this YAML file");
  app.add_flag("--print-ir-after-all", flags.printIRAfterAll,
               "Print the IR after every pass (to stderr)");
  try {
    app.parse(argc, argv);
    flags.emitGiven = app.count("--emit") > 0;
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return fail(e.what());
  }
  // An input that trips a bug in the compiler (or in upstream MLIR, whose
  // parsers crash on some malformed attributes) ends in an error message
  // and exit code 1, not a signal.
  llvm::CrashRecoveryContext::Enable();
  stack_guard::install();
  llvm::CrashRecoveryContext recovery;
  int status = 1;
  bool reportedError = false;
  if (!recovery.RunSafely([&] { status = compile(flags, reportedError); })) {
    if (reportedError)
      llvm::errs() << "fwc: error: stopped after the errors above (MLIR "
                      "crashed while recovering from them)\n";
    else
      llvm::errs() << "fwc: error: internal compiler error while compiling '"
                   << flags.input
                   << "'; the input triggered a bug in fwc or MLIR\n";
    return 1;
  }
  return status;
}
