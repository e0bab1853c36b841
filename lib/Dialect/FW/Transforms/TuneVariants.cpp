//===- TuneVariants.cpp - Measured knobs, or candidates to measure ---------===//
//
// The compile-time half of autotuning: an executable either takes the knobs a
// profile found fastest, or, when hot and autotuning is on, gets several
// variants with different knobs for the runtime to measure: CPU variants, and
// per GPU target variants for that target.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/ProfileAttrs.h"
#include "fw/Target/TuningConfig.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Remarks.h"

#include "llvm/Support/FormatVariadic.h"

namespace mlir::fw {
#define GEN_PASS_DEF_TUNEVARIANTSPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// What kind of kernel a variant holds, which decides the knobs worth trying.
/// On GPUs only a matmul is a contraction (the tiled GEMM); a convolution
/// runs as loop nests.
static KernelClass classifyKernel(VariantOp variant) {
  bool gpu = !isa<CPUTargetAttr>(variant.getTarget());
  KernelClass kind = KernelClass::Other;
  variant.getInnerModule().walk([&](linalg::LinalgOp op) {
    if (linalg::isaContractionOpInterface(op) ||
        (!gpu && linalg::isaConvolutionOpInterface(op))) {
      kind = KernelClass::Contraction;
      return WalkResult::interrupt();
    }
    if (op.getNumParallelLoops() > 0)
      kind = KernelClass::Divisible;
    return WalkResult::advance();
  });
  return kind;
}

/// A nominal time from the estimates: 100 GFLOP/s and 10 GB/s.
static double getEstimatedSeconds(ExecutableOp exe) {
  return static_cast<double>(exe.getFlops().value_or(0)) / 1e11 +
         static_cast<double>(exe.getBytes().value_or(0)) / 1e10;
}

/// The executables that make up 90% of the module's cost, by measured time
/// when the module was profiled, else by the estimates (and those without
/// any).
static llvm::DenseSet<Operation *> findHotExecutables(ModuleOp module) {
  SmallVector<ExecutableOp> exes(module.getOps<ExecutableOp>());
  bool measured = llvm::any_of(
      exes, [](ExecutableOp exe) { return getMeasuredSeconds(exe).has_value(); });
  SmallVector<std::pair<double, ExecutableOp>> costs;
  double total = 0;
  for (ExecutableOp exe : exes) {
    double cost = measured ? getMeasuredSeconds(exe).value_or(0)
                           : getEstimatedSeconds(exe);
    costs.push_back({cost, exe});
    total += cost;
  }
  // Ties keep module order, so the choice is deterministic.
  llvm::sort(costs, [&](const auto &a, const auto &b) {
    if (a.first != b.first)
      return a.first > b.first;
    return a.second->isBeforeInBlock(b.second);
  });
  llvm::DenseSet<Operation *> hot;
  // Without a profile, an executable with dynamic shapes has no estimate: it
  // may well be hot, so it is tuned too.
  if (!measured)
    for (ExecutableOp exe : exes)
      if (!exe.getFlops() && !exe.getBytes())
        hot.insert(exe);
  double covered = 0;
  for (auto [cost, exe] : costs) {
    if (cost <= 0 || covered >= 0.9 * total)
      break;
    hot.insert(exe);
    covered += cost;
  }
  return hot;
}

/// The knobs of `text` when they parse and fit `target`, else why not.
static llvm::Expected<TuningConfig> parseFittingTuning(llvm::StringRef text,
                                                      const TargetDescription &target) {
  llvm::Expected<TuningConfig> tuning = parseTuningConfig(text);
  if (!tuning)
    return tuning.takeError();
  if (llvm::Error err = verifyTuningConfig(*tuning, target))
    return std::move(err);
  return tuning;
}

/// Whether `exe` has a variant for the CPU level `arch` already.
static bool hasVariantFor(ExecutableOp exe, llvm::StringRef arch) {
  return llvm::any_of(exe.getOps<VariantOp>(), [&](VariantOp variant) {
    return isa<CPUTargetAttr>(variant.getTarget()) &&
           variant.getTargetInterface().getArchName() == arch;
  });
}

namespace {

struct TuneVariantsPass
    : public fw::impl::TuneVariantsPassBase<TuneVariantsPass> {
  using TuneVariantsPassBase::TuneVariantsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseSet<Operation *> hot;
    if (candidates > 1)
      hot = findHotExecutables(module);
    for (ExecutableOp exe : module.getOps<ExecutableOp>()) {
      auto profile = exe->getAttrOfType<DictionaryAttr>(kProfileAttrName);
      bool tuned = false, kept = false; // candidates added; the profile's knobs kept
      // The first variant per GPU target: its knobs, or candidates.
      SmallVector<VariantOp> gpus;
      for (VariantOp variant : exe.getOps<VariantOp>())
        if (!isa<CPUTargetAttr>(variant.getTarget()) &&
            llvm::none_of(gpus, [&](VariantOp other) {
              return other.getTarget() == variant.getTarget();
            }))
          gpus.push_back(variant);
      for (VariantOp gpu : gpus) {
        const TargetDescription *target =
            lookupTarget(gpu.getTargetInterface().getArchName());
        if (!target)
          continue;
        StringRef arch = target->arch;
        auto configs = profile ? profile.getAs<DictionaryAttr>(kProfileGPUConfigName)
                               : nullptr;
        if (auto config = configs ? configs.getAs<StringAttr>(arch) : nullptr) {
          keepMeasuredGPU(exe, gpu, *target, config.getValue(), profile);
          kept = true;
          continue;
        }
        if (hot.contains(exe))
          tuned |= addCandidates(exe, gpu, *target);
      }

      VariantOp cpu;
      for (VariantOp variant : exe.getOps<VariantOp>())
        if (!cpu && isa<CPUTargetAttr>(variant.getTarget()))
          cpu = variant;
      const TargetDescription *target =
          cpu ? lookupTarget(cpu.getTargetInterface().getArchName()) : nullptr;
      auto config = profile ? profile.getAs<StringAttr>(kProfileConfigName) : nullptr;
      if (target && config) {
        auto arch = profile.getAs<StringAttr>(kProfileArchName);
        keepMeasured(exe, cpu, arch ? arch.getValue() : cpu.getTargetInterface().getArchName(),
                     config.getValue(), profile);
        kept = true;
      } else if (target && hot.contains(exe)) {
        tuned |= addCandidates(exe, cpu, *target);
      }
      if (tuned)
        exe->setAttr(kAutotuneAttrName, UnitAttr::get(exe.getContext()));
      else if (!kept && hot.contains(exe) && (cpu || !gpus.empty()))
        remark::missed(exe.getLoc(), remark::RemarkOpts::name("Autotune")
                                         .category("fw-autotune")
                                         .function(exe.getSymName()))
            << llvm::formatv("task {0}: hot, but its kernel has no knobs to tune",
                             exe.getSymName())
                   .str();
    }
  }

  /// The first variant for a GPU target takes the knobs the profile found
  /// fastest on it.
  void keepMeasuredGPU(ExecutableOp exe, VariantOp gpu,
                       const TargetDescription &target, llvm::StringRef text,
                       DictionaryAttr profile) {
    llvm::Expected<TuningConfig> tuning = parseFittingTuning(text, target);
    if (!tuning) {
      exe.emitWarning() << "the profile's fastest " << target.arch << " variant of "
                        << exe.getSymName() << " (knobs '" << text
                        << "') does not fit: " << llvm::toString(tuning.takeError())
                        << "; the target's defaults are kept";
      return;
    }
    gpu.setTuning(*tuning);
    auto counts = profile.getAs<DictionaryAttr>(kProfileGPUCandidatesName);
    auto count = counts ? counts.getAs<IntegerAttr>(target.arch) : nullptr;
    remark::passed(exe.getLoc(), remark::RemarkOpts::name("KeepVariant")
                                     .category("fw-profile")
                                     .function(exe.getSymName()))
        << llvm::formatv("task {0}: kept the {1} variant with {2}, the fastest "
                         "of {3} measured",
                         exe.getSymName(), target.arch,
                         text.empty() ? "the defaults" : text.str(),
                         count ? count.getInt() : 1)
               .str();
  }

  /// The CPU variant takes the target and knobs the profile found fastest. A
  /// faster higher ISA level becomes the first CPU variant, which the runtime
  /// runs where the processor has it; the variant that was first stays behind
  /// it, with the target's defaults, for processors without it.
  void keepMeasured(ExecutableOp exe, VariantOp cpu, llvm::StringRef arch,
                    llvm::StringRef text, DictionaryAttr profile) {
    const TargetDescription *target = lookupTarget(arch);
    llvm::Expected<TuningConfig> tuning =
        !target || target->kind != TargetKind::CPU
            ? llvm::createStringError("not a CPU target fw knows")
            : parseFittingTuning(text, *target);
    if (!tuning) {
      exe.emitWarning() << "the profile's fastest variant of " << exe.getSymName()
                        << " (target " << arch << ", knobs '" << text
                        << "') does not fit: " << llvm::toString(tuning.takeError())
                        << "; the target's defaults are kept";
      return;
    }
    auto count = profile.getAs<IntegerAttr>(kProfileCandidatesName);
    std::string what = text.empty() ? "the defaults" : text.str();
    if (arch == cpu.getTargetInterface().getArchName()) {
      cpu.setTuning(*tuning);
    } else {
      // The variant for that level: the one the module has, or a new one.
      auto attr = CPUTargetAttr::get(exe.getContext(), arch);
      VariantOp chosen;
      for (VariantOp variant : exe.getOps<VariantOp>())
        if (variant.getTarget() == attr)
          chosen = variant;
      if (!chosen) {
        OpBuilder b(cpu);
        chosen = cast<VariantOp>(b.clone(*cpu));
        chosen.setTargetAttr(attr);
        chosen.setSymName(getVariantName(attr));
      }
      chosen->moveBefore(cpu);
      chosen.setTuning(*tuning);
      cpu.setTuning(TuningConfig());
      what = (arch + " variant with " + what + " (" +
              cpu.getTargetInterface().getArchName() +
              " with its defaults stays for processors without " + arch + ")")
                 .str();
    }
    remark::passed(exe.getLoc(), remark::RemarkOpts::name("KeepVariant")
                                     .category("fw-profile")
                                     .function(exe.getSymName()))
        << llvm::formatv("task {0}: kept the CPU {1}, the fastest of {2} measured",
                         exe.getSymName(),
                         arch == cpu.getTargetInterface().getArchName()
                             ? "variant with " + what
                             : what,
                         count ? count.getInt() : 1)
               .str();
  }

  /// Clones the variant (the CPU one, or the first for a GPU target) once
  /// per other candidate; false when there is none.
  bool addCandidates(ExecutableOp exe, VariantOp cpu,
                     const TargetDescription &target) {
    KernelClass kind = classifyKernel(cpu);
    // Higher ISA levels first (the runtime loads only those the processor
    // has), then other knobs for the variant's own level.
    SmallVector<std::pair<const TargetDescription *, TuningConfig>> configs;
    configs.push_back({&target, TuningConfig()});
    bool above = false;
    for (const TargetDescription &level : getTargetDescriptions()) {
      if (level.kind != TargetKind::CPU || target.kind != TargetKind::CPU)
        continue;
      if (above && kind != KernelClass::Other && configs.size() < candidates &&
          !hasVariantFor(exe, level.arch))
        configs.push_back({&level, TuningConfig()});
      above |= level.arch == target.arch;
    }
    for (const TuningConfig &config : getTuningCandidates(target, kind, candidates))
      if (!config.empty() && configs.size() < candidates)
        configs.push_back({&target, config});
    if (configs.size() < 2)
      return false;
    OpBuilder b(exe.getContext());
    b.setInsertionPointAfter(cpu);
    std::string list;
    for (auto [i, candidate] : llvm::enumerate(configs)) {
      auto [level, config] = candidate;
      std::string knobs = config.empty() ? "defaults" : formatTuningConfig(config);
      list += llvm::formatv("{0}{1}{2}", i ? "; " : "",
                            level == &target ? "" : level->arch.str() + " ", knobs);
      if (i == 0)
        continue;
      auto clone = cast<VariantOp>(b.clone(*cpu));
      if (level != &target) {
        auto attr = CPUTargetAttr::get(exe.getContext(), level->arch);
        clone.setTargetAttr(attr);
        clone.setSymName(getVariantName(attr));
      } else {
        clone.setSymName((cpu.getSymName() + "_t" + Twine(i)).str());
      }
      clone.setTuning(config);
    }
    remark::passed(exe.getLoc(), remark::RemarkOpts::name("Autotune")
                                     .category("fw-autotune")
                                     .function(exe.getSymName()))
        << llvm::formatv("task {0}: {1} candidate {2}variants for the runtime "
                         "to measure ({3})",
                         exe.getSymName(), configs.size(),
                         target.kind == TargetKind::CPU ? "" : target.arch + " ",
                         list)
               .str();
    return true;
  }
};

} // namespace
