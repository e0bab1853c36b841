//===- ApplyProfile.cpp - Measured times onto tasks; placement, merging ----===//
//
// The first profile-guided pass: a profile of an earlier run says how long
// each task took on each device and which variant of its kernel was fastest.
// Tasks get those figures (fw.profile), the placement hint of their fastest
// device, tasks too short to be worth a dispatch merge with their consumer,
// and long tasks that ran whole on one CPU worker split into parts the code
// generator divides among workers.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/CostEstimate.h"
#include "fw/Dialect/FW/Transforms/FormTasks.h"
#include "fw/Dialect/FW/Transforms/ShapeChecks.h"
#include "fw/Dialect/FW/Transforms/ProfileAttrs.h"
#include "fw/Profile/Profile.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Remarks.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

namespace mlir::fw {
#define GEN_PASS_DEF_APPLYPROFILEPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

namespace {

/// What the profile says about one task.
struct Evidence {
  /// Median seconds per device kind, in the size class with the most time:
  /// the runs of the variant autotuning chose when there are some, else the
  /// fastest variant's.
  std::map<std::string, double> seconds;
  /// CPU variants measured in that size class: (target, knobs) -> seconds of
  /// the runs that compare them (the trials, when every candidate has some:
  /// they ran in turn under the same conditions), the fastest run (or the
  /// median, if lower: a hand-edited one).
  std::map<std::pair<std::string, std::string>, double> cpuVariants;
  /// The variant the runtime's autotuning chose, if any.
  std::optional<std::pair<std::string, std::string>> runtimeChoice;
  /// The same per GPU target: target -> knobs -> seconds (the kernel's time
  /// on the device when the profile has it, else the fastest run), and the
  /// knobs the runtime chose there.
  std::map<std::string, std::map<std::string, double>> gpuVariants;
  std::map<std::string, std::string> gpuRuntimeChoice;
  /// The executable's binding types, as the profile recorded them.
  std::string bindings;
  /// The identical tasks whose variant figures were pooled with these.
  std::string pooledWith;
  /// The most workgroups a CPU run was divided into (1: one worker ran the
  /// kernel whole); 0 when the profile does not say.
  uint64_t cpuWorkgroups = 0;
  /// Per device kind, the bytes copied between tiers per run to bring the
  /// inputs where it ran, per tier pair ("host->device").
  std::map<std::string, std::map<std::string, double>> movedPerRun;
};

/// Gathers the evidence per executable name.
llvm::StringMap<Evidence> gatherEvidence(const Profile &profile) {
  // Per (executable, device): the size class with the most total time.
  std::map<std::pair<std::string, std::string>, std::pair<int, double>> dominant;
  std::map<std::tuple<std::string, std::string, int>, double> timeInClass;
  for (const ProfileEntry &e : profile.entries)
    timeInClass[{e.executable().str(), e.device, e.sizeClass}] += e.totalSeconds;
  for (const auto &[key, total] : timeInClass) {
    auto &[exe, device, sizeClass] = key;
    auto &best = dominant[{exe, device}];
    if (total >= best.second)
      best = {sizeClass, total};
  }
  llvm::StringMap<Evidence> evidence;
  // Per executable: its variants' trial and chosen medians, and per device
  // the medians of chosen runs and of the others.
  struct Medians {
    std::optional<double> trial, chosen;
  };
  // What a variant is compared on: its trials when every candidate has some
  // (they ran in turn under the same conditions), else its fastest figure.
  auto compareOn = [](const Medians &m, bool allTrials) {
    return allTrials ? *m.trial
                     : std::min(m.trial.value_or(*m.chosen), m.chosen.value_or(*m.trial));
  };
  llvm::StringMap<std::map<std::pair<std::string, std::string>, Medians>> cpu;
  llvm::StringMap<std::map<std::pair<std::string, std::string>, Medians>> gpu;
  // Per (executable, device): runs and bytes moved per tier pair.
  std::map<std::pair<std::string, std::string>,
           std::pair<uint64_t, std::map<std::string, uint64_t>>>
      moved;
  llvm::StringMap<std::map<std::string, Medians>> devices;
  for (const ProfileEntry &e : profile.entries) {
    std::string exe = e.executable().str();
    if (dominant[{exe, e.device}].first != e.sizeClass || e.count == 0)
      continue;
    Evidence &ev = evidence[exe];
    if (!e.bindings.empty())
      ev.bindings = e.bindings;
    auto keep = [&](std::optional<double> &slot) {
      slot = std::min(slot.value_or(e.medianSeconds), e.medianSeconds);
    };
    Medians &device = devices[exe][e.device];
    keep(e.selected ? device.chosen : device.trial);
    auto &[runs, bytes] = moved[{exe, e.device}];
    runs += e.count;
    for (const auto &[pair, n] : e.bytesMoved)
      bytes[pair] += n;
    if (e.device != "cpu") {
      // GPU candidates compare on the kernels' own time when events measured
      // it: launches and synchronization are the same for every candidate.
      if (e.arch.empty())
        continue;
      Medians &variant = gpu[exe][{e.arch, e.config}];
      std::optional<double> &slot = e.selected ? variant.chosen : variant.trial;
      double fastest = e.deviceSeconds ? *e.deviceSeconds
                                       : std::min(e.minSeconds, e.medianSeconds);
      slot = std::min(slot.value_or(fastest), fastest);
      if (e.selected)
        ev.gpuRuntimeChoice[e.arch] = e.config;
      continue;
    }
    ev.cpuWorkgroups = std::max(ev.cpuWorkgroups, e.workgroups);
    // Candidates compare on their fastest runs: interference only adds time.
    Medians &variant = cpu[exe][{e.arch, e.config}];
    std::optional<double> &slot = e.selected ? variant.chosen : variant.trial;
    double fastest = std::min(e.minSeconds, e.medianSeconds);
    slot = std::min(slot.value_or(fastest), fastest);
    if (e.selected)
      ev.runtimeChoice = {e.arch, e.config};
  }
  for (auto &[exe, ev] : evidence) {
    for (const auto &[device, m] : devices[exe]) {
      ev.seconds[device] = m.chosen ? *m.chosen : *m.trial;
      const auto &[runs, bytes] = moved[{exe.str(), device}];
      for (const auto &[pair, n] : bytes)
        if (n && runs)
          ev.movedPerRun[device][pair] = static_cast<double>(n) / static_cast<double>(runs);
    }
    const auto &variants = cpu[exe];
    bool allTrials = llvm::all_of(variants, [](const auto &v) {
      return v.second.trial.has_value();
    });
    for (const auto &[variant, m] : variants)
      ev.cpuVariants[variant] = compareOn(m, allTrials);
    // Per GPU target, the same rule.
    std::map<std::string, bool> gpuTrials;
    for (const auto &[variant, m] : gpu[exe])
      gpuTrials.emplace(variant.first, true).first->second &= m.trial.has_value();
    for (const auto &[variant, m] : gpu[exe])
      ev.gpuVariants[variant.first][variant.second] =
          compareOn(m, gpuTrials[variant.first]);
  }
  return evidence;
}

/// A task's binding types as the runtime formats them: operands then results,
/// `?x784xf32, 784x256xf32, ?x256xf32`.
std::string getBindingTypes(TaskOp task) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto print = [&](Type type) {
    if (!text.empty())
      os << ", ";
    auto tensor = cast<RankedTensorType>(type);
    for (int64_t dim : tensor.getShape()) {
      if (ShapedType::isDynamic(dim))
        os << '?';
      else
        os << dim;
      os << 'x';
    }
    os << tensor.getElementType();
  };
  for (Type type : task.getArgs().getTypes())
    print(type);
  for (Type type : task.getResultTypes())
    print(type);
  return text;
}

/// The measured CPU time of a task, if any.
std::optional<double> getCpuSeconds(TaskOp task) {
  auto profile = task->getAttrOfType<DictionaryAttr>(kProfileAttrName);
  if (!profile)
    return std::nullopt;
  if (auto seconds = profile.getAs<FloatAttr>("cpu"))
    return seconds.getValueAsDouble();
  return std::nullopt;
}

/// The dynamic sizes of result `index` among `task`'s result_dims.
ValueRange getResultDims(TaskOp task, unsigned index) {
  unsigned start = 0;
  for (unsigned i = 0; i < index; ++i)
    start += cast<RankedTensorType>(task.getResult(i).getType()).getNumDynamicDims();
  unsigned count =
      cast<RankedTensorType>(task.getResult(index).getType()).getNumDynamicDims();
  return task.getResultDims().slice(start, count);
}

/// The operation of `block` that holds `op` (op itself or an ancestor).
Operation *getAncestorIn(Block *block, Operation *op) {
  while (op && op->getBlock() != block)
    op = op->getParentOp();
  return op;
}

/// Whether `producer` can merge into `consumer`: the consumer reads one of its
/// results, and every other use of them comes after the consumer, so the
/// merged task can take the consumer's place.
bool canMerge(TaskOp producer, TaskOp consumer) {
  if (producer->getBlock() != consumer->getBlock() ||
      !producer->isBeforeInBlock(consumer))
    return false;
  bool feeds = false;
  for (Value result : producer.getResults())
    for (OpOperand &use : result.getUses()) {
      Operation *user = getAncestorIn(consumer->getBlock(), use.getOwner());
      if (user == consumer.getOperation()) {
        // Only as a task operand: dims come from the host.
        if (use.getOperandNumber() >= consumer.getArgs().size())
          return false;
        feeds = true;
      } else if (!user || !consumer->isBeforeInBlock(user)) {
        return false;
      }
    }
  return feeds;
}

/// Merges `producer` into `consumer`: one task that computes both, at the
/// consumer's place, returning the consumer's results and those of the
/// producer that others still use.
TaskOp mergeTasks(TaskOp producer, TaskOp consumer) {
  SmallVector<Value> args(producer.getArgs());
  for (Value v : consumer.getArgs())
    if (v.getDefiningOp() != producer.getOperation() && !llvm::is_contained(args, v))
      args.push_back(v);
  SmallVector<unsigned> keptProducerResults;
  for (OpResult result : producer->getResults())
    if (llvm::any_of(result.getUsers(), [&](Operation *user) {
          return getAncestorIn(consumer->getBlock(), user) != consumer;
        }))
      keptProducerResults.push_back(result.getResultNumber());

  SmallVector<Type> resultTypes(consumer.getResultTypes());
  SmallVector<Value> dims(consumer.getResultDims());
  for (unsigned i : keptProducerResults) {
    resultTypes.push_back(producer.getResult(i).getType());
    llvm::append_range(dims, getResultDims(producer, i));
  }

  OpBuilder b(consumer);
  auto merged = TaskOp::create(b, consumer.getLoc(), resultTypes, args, dims);
  if (producer->hasAttr(kHostCheckedAttrName) &&
      consumer->hasAttr(kHostCheckedAttrName))
    merged->setAttr(kHostCheckedAttrName, b.getUnitAttr());
  Block *body = &merged.getBody().front();
  OpBuilder inner = OpBuilder::atBlockBegin(body);
  auto argFor = [&](Value v) {
    return body->getArgument(llvm::find(args, v) - args.begin());
  };
  IRMapping mapping;
  Block &producerBody = producer.getBody().front();
  for (auto [blockArg, operand] :
       llvm::zip(producerBody.getArguments(), producer.getArgs()))
    mapping.map(blockArg, argFor(operand));
  for (Operation &op : producerBody.without_terminator())
    inner.clone(op, mapping);
  auto producerYield = cast<YieldOp>(producerBody.getTerminator());
  Block &consumerBody = consumer.getBody().front();
  for (auto [blockArg, operand] :
       llvm::zip(consumerBody.getArguments(), consumer.getArgs())) {
    if (auto result = dyn_cast<OpResult>(operand);
        result && result.getOwner() == producer.getOperation())
      mapping.map(blockArg, mapping.lookup(
                                producerYield.getValues()[result.getResultNumber()]));
    else
      mapping.map(blockArg, argFor(operand));
  }
  for (Operation &op : consumerBody.without_terminator())
    inner.clone(op, mapping);
  SmallVector<Value> yielded;
  for (Value v : cast<YieldOp>(consumerBody.getTerminator()).getValues())
    yielded.push_back(mapping.lookupOrDefault(v));
  for (unsigned i : keptProducerResults)
    yielded.push_back(mapping.lookupOrDefault(producerYield.getValues()[i]));
  YieldOp::create(inner, consumer.getLoc(), yielded);

  // Costs are counted again over the merged body (dynamic dims now name its
  // bindings); a placement both agree on stays.
  setCostEstimate(merged);
  if (producer.getHintAttr() == consumer.getHintAttr())
    merged.setHintAttr(consumer.getHintAttr());
  std::optional<double> a = getCpuSeconds(producer), c = getCpuSeconds(consumer);
  if (a && c)
    merged->setAttr(kProfileAttrName,
                    b.getDictionaryAttr(b.getNamedAttr("cpu", b.getF64FloatAttr(*a + *c))));

  for (auto [i, result] : llvm::enumerate(consumer.getResults()))
    result.replaceAllUsesWith(merged.getResult(i));
  for (auto [k, i] : llvm::enumerate(keptProducerResults))
    producer.getResult(i).replaceAllUsesWith(
        merged.getResult(consumer.getNumResults() + k));
  consumer.erase();
  producer.erase();
  return merged;
}

/// "x86-64-v4 kc=256", "defaults".
std::string describeVariant(const std::pair<std::string, std::string> &variant) {
  std::string knobs = variant.second.empty() ? "defaults" : variant.second;
  return variant.first.empty() ? knobs : variant.first + " " + knobs;
}

/// "512 B", "4.0 MiB".
std::string formatBytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return u ? llvm::formatv("{0:F1} {1}", bytes, units[u]).str()
           : llvm::formatv("{0:F0} B", bytes).str();
}

/// "3.0 us", "2.00 ms": a value that rounds up to 1000 takes the next unit.
std::string formatSeconds(double seconds) {
  if (seconds < 0.99995e-3)
    return llvm::formatv("{0:F1} us", seconds * 1e6).str();
  if (seconds < 0.999995)
    return llvm::formatv("{0:F2} ms", seconds * 1e3).str();
  return llvm::formatv("{0:F2} s", seconds).str();
}

struct ApplyProfilePass
    : public fw::impl::ApplyProfilePassBase<ApplyProfilePass> {
  using ApplyProfilePassBase::ApplyProfilePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (profile.empty())
      return;
    llvm::Expected<Profile> read = readProfile(profile);
    if (!read) {
      module.emitError(llvm::toString(read.takeError()));
      return signalPassFailure();
    }
    if (!sourceId.empty()) {
      uint64_t expected = 0;
      if (llvm::StringRef(sourceId).getAsInteger(0, expected)) {
        module.emitError("fw-apply-profile: source-id '")
            << sourceId << "' is not a number";
        return signalPassFailure();
      }
      if (read->sourceId != expected) {
        module.emitWarning() << llvm::formatv(
            "profile '{0}' was made from another source program (source id "
            "{1:x16}, this one {2:x16}): it is ignored",
            profile, read->sourceId, expected);
        return;
      }
    }
    llvm::StringMap<Evidence> evidence = gatherEvidence(*read);
    for (const auto &[pair, t] : read->transfers)
      if (t.first && t.second > 0)
        transferRates[pair] = static_cast<double>(t.first) / t.second;
    struct Matched {
      TaskOp task;
      std::string name;
      Evidence evidence;
    };
    std::vector<Matched> matched;
    SmallVector<std::pair<func::FuncOp, SmallVector<TaskOp>>> functions;
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<TaskOp> tasks;
      func.walk([&](TaskOp task) { tasks.push_back(task); });
      functions.push_back({func, tasks});
      for (auto [n, task] : llvm::enumerate(tasks)) {
        std::string name = (func.getSymName() + "_dispatch_" + Twine(n)).str();
        auto it = evidence.find(name);
        if (it == evidence.end())
          continue;
        std::string bindings = getBindingTypes(task);
        if (!it->second.bindings.empty() && it->second.bindings != bindings) {
          task.emitWarning() << "the profile's " << name << " has bindings ("
                             << it->second.bindings << "), this task ("
                             << bindings
                             << "): the profile comes from a build with other "
                                "options; its figures are not used for this task";
          continue;
        }
        matched.push_back({task, name, it->second});
      }
    }
    // Tasks that compute the same thing on the same types (attention's three
    // projections) have the same fastest variant: their candidates' figures
    // pool, so that one noisy trial does not send them different ways.
    std::vector<bool> pooled(matched.size(), false);
    for (size_t i = 0; i < matched.size(); ++i) {
      if (pooled[i] || matched[i].evidence.cpuVariants.size() < 2)
        continue;
      SmallVector<size_t> group = {i};
      for (size_t j = i + 1; j < matched.size(); ++j)
        if (!pooled[j] && matched[j].evidence.cpuVariants.size() >= 2 &&
            getBindingTypes(matched[i].task) == getBindingTypes(matched[j].task) &&
            OperationEquivalence::isRegionEquivalentTo(
                &matched[i].task.getBody(), &matched[j].task.getBody(),
                OperationEquivalence::IgnoreLocations))
          group.push_back(j);
      if (group.size() < 2)
        continue;
      std::map<std::pair<std::string, std::string>, double> pool;
      std::string names;
      for (size_t k : group) {
        for (const auto &[variant, seconds] : matched[k].evidence.cpuVariants) {
          auto [it, inserted] = pool.try_emplace(variant, seconds);
          if (!inserted)
            it->second = std::min(it->second, seconds);
        }
        names += (names.empty() ? "" : ", ") + matched[k].name;
      }
      for (size_t k : group) {
        pooled[k] = true;
        matched[k].evidence.cpuVariants = pool;
        matched[k].evidence.pooledWith = names;
      }
    }
    for (Matched &m : matched)
      annotate(m.task, m.name, m.evidence);
    if (mergeBelowUs > 0)
      for (auto &[func, tasks] : functions)
        mergeShortTasks(func, tasks);
    // Merged tasks are new operations without a workgroup figure: the tasks
    // left with one are matched ones, under their names.
    if (splitAboveUs > 0) {
      llvm::DenseMap<Operation *, std::string> names;
      for (Matched &m : matched)
        names[m.task] = m.name;
      for (auto &[func, tasks] : functions)
        if (failed(splitLongTasks(func, names, read->cpuWorkers)))
          return signalPassFailure();
    }
    if (matched.empty() && !read->entries.empty())
      module.emitWarning() << "profile '" << profile
                           << "' names no task of this module";
  }

  /// Bytes per second a copy between two tiers got in the profiled runs.
  std::map<std::string, double> transferRates;

  /// Sets fw.profile and the placement hint of one task.
  void annotate(TaskOp task, llvm::StringRef name, const Evidence &ev) {
    Builder b(task.getContext());
    SmallVector<NamedAttribute> entries;
    for (const auto &[device, seconds] : ev.seconds)
      entries.push_back(b.getNamedAttr(device, b.getF64FloatAttr(seconds)));
    auto fastestVariant = std::min_element(
        ev.cpuVariants.begin(), ev.cpuVariants.end(),
        [](const auto &x, const auto &y) { return x.second < y.second; });
    if (fastestVariant != ev.cpuVariants.end() &&
        (ev.cpuVariants.size() > 1 || !fastestVariant->first.second.empty())) {
      if (!fastestVariant->first.first.empty())
        entries.push_back(b.getNamedAttr(
            kProfileArchName, b.getStringAttr(fastestVariant->first.first)));
      entries.push_back(b.getNamedAttr(
          kProfileConfigName, b.getStringAttr(fastestVariant->first.second)));
      entries.push_back(b.getNamedAttr(
          kProfileCandidatesName, b.getI64IntegerAttr(ev.cpuVariants.size())));
      std::string evidence;
      for (const auto &[variant, seconds] : ev.cpuVariants)
        evidence += llvm::formatv("{0}{1}: {2}", evidence.empty() ? "" : "; ",
                                  describeVariant(variant), formatSeconds(seconds));
      if (ev.runtimeChoice && *ev.runtimeChoice != fastestVariant->first)
        evidence += "; the runtime had chosen " + describeVariant(*ev.runtimeChoice);
      if (!ev.pooledWith.empty())
        evidence += "; fastest runs of the identical tasks " + ev.pooledWith;
      remark::analysis(task.getLoc(), remark::RemarkOpts::name("VariantEvidence")
                                          .category("fw-profile")
                                          .function(name))
          << llvm::formatv("task {0}: {1} CPU variant(s) measured ({2})", name,
                           ev.cpuVariants.size(), evidence)
                 .str();
    }
    annotateGPUVariants(task, name, ev, entries);
    if (ev.cpuWorkgroups)
      entries.push_back(b.getNamedAttr(kProfileWorkgroupsName,
                                       b.getI64IntegerAttr(ev.cpuWorkgroups)));
    task->setAttr(kProfileAttrName, b.getDictionaryAttr(entries));

    if (ev.seconds.size() < 2)
      return;
    // Per device: its run time, plus the time its runs spent moving their
    // inputs there, at the rate the profile's copies between those tiers got.
    std::map<std::string, double> cost;
    std::string evidence;
    for (const auto &[device, seconds] : ev.seconds) {
      cost[device] = seconds;
      evidence += llvm::formatv("{0}{1} {2}", evidence.empty() ? "" : ", ", device,
                                formatSeconds(seconds));
      auto moved = ev.movedPerRun.find(device);
      if (moved == ev.movedPerRun.end())
        continue;
      for (const auto &[pair, bytes] : moved->second) {
        auto rate = transferRates.find(pair);
        if (rate == transferRates.end()) {
          evidence += llvm::formatv(" (and {0} moved {1} a run, at no measured rate)",
                                    formatBytes(bytes), pair);
          continue;
        }
        double seconds = bytes / rate->second;
        cost[device] += seconds;
        evidence += llvm::formatv(" + {0} moving {1} {2} a run at {3:F2} GB/s",
                                  formatSeconds(seconds), formatBytes(bytes), pair,
                                  rate->second * 1e-9);
      }
    }
    auto fastest = std::min_element(
        cost.begin(), cost.end(),
        [](const auto &x, const auto &y) { return x.second < y.second; });
    DeviceKind kind = fastest->first == "cpu" ? DeviceKind::cpu : DeviceKind::gpu;
    task.setHintAttr(DeviceKindAttr::get(task.getContext(), kind));
    remark::passed(task.getLoc(), remark::RemarkOpts::name("Placement")
                                      .category("fw-profile")
                                      .function(name))
        << llvm::formatv("task {0} placed on {1}: measured {2}", name,
                         kind == DeviceKind::cpu ? "cpu" : "gpu", evidence)
               .str();
  }

  /// The fastest knobs per GPU target where several variants (or one with
  /// knobs) were measured: gpu_config and gpu_candidates, with the evidence
  /// as a remark.
  void annotateGPUVariants(TaskOp task, llvm::StringRef name, const Evidence &ev,
                           SmallVectorImpl<NamedAttribute> &entries) {
    Builder b(task.getContext());
    SmallVector<NamedAttribute> configs, counts;
    for (const auto &[arch, variants] : ev.gpuVariants) {
      auto fastest = std::min_element(
          variants.begin(), variants.end(),
          [](const auto &x, const auto &y) { return x.second < y.second; });
      if (variants.size() < 2 && fastest->first.empty())
        continue;
      configs.push_back(b.getNamedAttr(arch, b.getStringAttr(fastest->first)));
      counts.push_back(b.getNamedAttr(arch, b.getI64IntegerAttr(variants.size())));
      std::string evidence;
      for (const auto &[config, seconds] : variants)
        evidence += llvm::formatv("{0}{1}: {2}", evidence.empty() ? "" : "; ",
                                  config.empty() ? "defaults" : config,
                                  formatSeconds(seconds));
      auto chosen = ev.gpuRuntimeChoice.find(arch);
      if (chosen != ev.gpuRuntimeChoice.end() && chosen->second != fastest->first)
        evidence += "; the runtime had chosen " +
                    (chosen->second.empty() ? std::string("defaults") : chosen->second);
      remark::analysis(task.getLoc(), remark::RemarkOpts::name("VariantEvidence")
                                          .category("fw-profile")
                                          .function(name))
          << llvm::formatv("task {0}: {1} {2} variant(s) measured ({3})", name,
                           variants.size(), arch, evidence)
                 .str();
    }
    if (configs.empty())
      return;
    entries.push_back(b.getNamedAttr(kProfileGPUConfigName, b.getDictionaryAttr(configs)));
    entries.push_back(
        b.getNamedAttr(kProfileGPUCandidatesName, b.getDictionaryAttr(counts)));
  }

  /// Splits the tasks measured above the threshold that ran whole on one of
  /// several CPU workers into parts the code generator divides.
  LogicalResult splitLongTasks(func::FuncOp func,
                               const llvm::DenseMap<Operation *, std::string> &names,
                               uint64_t cpuWorkers) {
    double threshold = splitAboveUs * 1e-6;
    SmallVector<TaskOp> tasks;
    func.walk([&](TaskOp task) { tasks.push_back(task); });
    for (TaskOp task : tasks) {
      auto profile = task->getAttrOfType<DictionaryAttr>(kProfileAttrName);
      auto workgroups =
          profile ? profile.getAs<IntegerAttr>(kProfileWorkgroupsName) : nullptr;
      std::optional<double> seconds = getCpuSeconds(task);
      if (!workgroups || workgroups.getInt() != 1 || !seconds ||
          *seconds < threshold)
        continue;
      auto name = names.find(task);
      if (name == names.end())
        continue;
      auto opts = remark::RemarkOpts::name("SplitTask")
                      .category("fw-profile")
                      .function(name->second);
      if (cpuWorkers < 2) {
        remark::missed(task.getLoc(), opts) << llvm::formatv(
            "task {0} ran for {1} (above the {2} threshold), but the profile "
            "had one CPU worker: whether its kernel divides its work is not "
            "known",
            name->second, formatSeconds(*seconds), formatSeconds(threshold))
                                                   .str();
        continue;
      }
      std::string evidence = llvm::formatv(
          "task {0} ran whole on one of {1} CPU workers for {2} (above the "
          "{3} threshold)",
          name->second, cpuWorkers, formatSeconds(*seconds),
          formatSeconds(threshold));
      SmallVector<SmallVector<Operation *>> groups = getSplitGroups(task);
      if (groups.size() < 2) {
        remark::missed(task.getLoc(), opts)
            << evidence + (groups.empty()
                               ? ", but it cannot be split: it yields one of its "
                                 "operands or a cheap value as it is, or computes "
                                 "values other than tensors"
                               : ", but its operations make one part: nothing to "
                                 "split");
        continue;
      }
      std::string parts;
      for (const SmallVector<Operation *> &group : groups) {
        parts += parts.empty() ? "" : " | ";
        for (auto [i, op] : llvm::enumerate(group))
          parts += (i ? " + " : "") + op->getName().getStringRef().str();
      }
      Location loc = task.getLoc();
      if (failed(splitTask(task, groups)))
        return failure();
      remark::passed(loc, opts)
          << evidence + llvm::formatv(": split into {0} tasks ({1}), for the "
                                      "CPU code to divide each among workers",
                                      groups.size(), parts)
                            .str();
    }
    return success();
  }

  /// Merges chains of tasks measured below the threshold.
  void mergeShortTasks(func::FuncOp func, ArrayRef<TaskOp> original) {
    double threshold = mergeBelowUs * 1e-6;
    llvm::DenseMap<Operation *, std::string> names;
    for (auto [n, task] : llvm::enumerate(original))
      names[task] = (func.getSymName() + "_dispatch_" + Twine(n)).str();
    SmallVector<TaskOp> tasks(original);
    for (size_t i = 0; i < tasks.size(); ++i) {
      TaskOp producer = tasks[i];
      std::optional<double> a = getCpuSeconds(producer);
      if (!a || *a >= threshold)
        continue;
      // The consumer: the first later task that reads one of its results.
      TaskOp consumer;
      for (size_t j = i + 1; j < tasks.size() && !consumer; ++j)
        for (Value arg : tasks[j].getArgs())
          if (arg.getDefiningOp() == producer.getOperation())
            consumer = tasks[j];
      if (!consumer || !canMerge(producer, consumer))
        continue;
      std::optional<double> c = getCpuSeconds(consumer);
      if (!c || *a + *c >= threshold)
        continue;
      std::string what = names[producer] + " + " + names[consumer];
      TaskOp merged = mergeTasks(producer, consumer);
      names[merged] = what;
      remark::passed(merged.getLoc(), remark::RemarkOpts::name("MergeTasks")
                                          .category("fw-profile")
                                          .function(func.getSymName()))
          << llvm::formatv("merged tasks {0}: measured {1} + {2}, below the "
                           "{3} threshold: one dispatch",
                           what, formatSeconds(*a), formatSeconds(*c),
                           formatSeconds(threshold))
                 .str();
      // The merged task replaces the consumer; the producer's slot goes.
      for (TaskOp &t : tasks)
        if (t == consumer)
          t = merged;
      tasks.erase(tasks.begin() + i);
      --i;
      // Re-examine the merged task as a producer when its turn comes.
    }
  }
};

} // namespace
