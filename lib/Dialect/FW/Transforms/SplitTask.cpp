//===- SplitTask.cpp - One task into several, along its operations --------===//
//
// A task formed from several operations can be one kernel the CPU code
// generator cannot divide among workers, because one operation needs all of
// another's result (column sums, then each element scaled by its column's),
// so it runs whole on one worker. Split along its operations, each part is a
// kernel the code generator can divide. fw-apply-profile does it to tasks a profile measured
// long and undivided.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/FormTasks.h"
#include "fw/Dialect/FW/Transforms/ShapeChecks.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::fw;

static bool isContractionOrConvolution(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && (linalg::isaContractionOpInterface(linalgOp) ||
                      linalg::isaConvolutionOpInterface(linalgOp));
}

/// Whether `op` is an elementwise linalg.generic that is the only user of
/// the result of `producer` and reads it as an input.
static bool isEpilogueOf(Operation *op, Operation *producer) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || producer->getNumResults() != 1 ||
      !producer->getResult(0).hasOneUse() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  return llvm::is_contained(generic.getDpsInputs(), producer->getResult(0));
}

/// Gives every op that is not destination-style (a reshape, an scf.for) a
/// part of its own: the host computes a part's result sizes from its last
/// op's inits or operands, which must then come from outside the part.
static void isolateNonDestinationOps(
    SmallVector<SmallVector<Operation *>> &groups) {
  SmallVector<SmallVector<Operation *>> out;
  for (SmallVector<Operation *> &group : groups) {
    SmallVector<Operation *> current;
    for (Operation *op : group) {
      if (isa<DestinationStyleOpInterface>(op)) {
        current.push_back(op);
        continue;
      }
      if (!current.empty())
        out.push_back(std::exchange(current, {}));
      out.push_back({op});
    }
    if (!current.empty())
      out.push_back(std::move(current));
  }
  groups = std::move(out);
}

/// Cuts `group` after every op but the last whose results are used outside
/// it: only the last op's results leave a task.
static void cutAtEscapes(SmallVector<SmallVector<Operation *>> &groups) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t g = 0; g < groups.size() && !changed; ++g) {
      SmallVector<Operation *> &group = groups[g];
      for (size_t i = 0; i + 1 < group.size(); ++i) {
        bool escapes = llvm::any_of(group[i]->getUsers(), [&](Operation *u) {
          return !llvm::is_contained(group, u);
        });
        if (!escapes)
          continue;
        SmallVector<Operation *> rest(group.begin() + i + 1, group.end());
        group.resize(i + 1);
        groups.insert(groups.begin() + g + 1, std::move(rest));
        changed = true;
        break;
      }
    }
  }
}

SmallVector<SmallVector<Operation *>> mlir::fw::getSplitGroups(TaskOp task) {
  Block &body = task.getBody().front();
  // Every result must come from a part: an operand or a cheap value yielded
  // as it is would end up on the host.
  for (Value v : body.getTerminator()->getOperands()) {
    Operation *def = v.getDefiningOp();
    if (!def || isRematerializable(def))
      return {};
  }
  // A fill of an empty tensor that only initializes one op goes with it.
  llvm::DenseMap<Operation *, SmallVector<Operation *, 1>> fillsOf;
  SmallVector<Operation *> compute;
  for (Operation &op : body.without_terminator()) {
    if (isRematerializable(&op))
      continue;
    if (!llvm::all_of(op.getResultTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); }))
      return {};
    auto fill = dyn_cast<linalg::FillOp>(&op);
    if (fill && fill.hasPureTensorSemantics() &&
        fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() &&
        fill->hasOneUse()) {
      OpOperand &use = *fill->use_begin();
      auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
      if (dps && dps.isDpsInit(&use) && use.getOwner()->getBlock() == &body) {
        fillsOf[use.getOwner()].push_back(fill);
        continue;
      }
    }
    compute.push_back(&op);
  }

  bool anyContraction = llvm::any_of(compute, isContractionOrConvolution);
  SmallVector<SmallVector<Operation *>> groups;
  SmallVector<Operation *> run;
  auto add = [&](SmallVector<Operation *> &group, Operation *op) {
    if (auto it = fillsOf.find(op); it != fillsOf.end())
      llvm::append_range(group, it->second);
    group.push_back(op);
  };
  for (size_t i = 0; i < compute.size(); ++i) {
    Operation *op = compute[i];
    if (!anyContraction) {
      add(groups.emplace_back(), op);
      continue;
    }
    if (!isContractionOrConvolution(op)) {
      add(run, op);
      continue;
    }
    if (!run.empty())
      groups.push_back(std::exchange(run, {}));
    SmallVector<Operation *> &group = groups.emplace_back();
    add(group, op);
    if (i + 1 < compute.size() && isEpilogueOf(compute[i + 1], op))
      add(group, compute[++i]);
  }
  if (!run.empty())
    groups.push_back(std::move(run));
  for (SmallVector<Operation *> &group : groups)
    llvm::sort(group, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
  isolateNonDestinationOps(groups);
  cutAtEscapes(groups);
  return groups;
}

FailureOr<SmallVector<TaskOp>>
mlir::fw::splitTask(TaskOp task, ArrayRef<SmallVector<Operation *>> groups) {
  if (groups.size() < 2)
    return failure();

  // The body goes back to the host, where each group becomes a task as
  // fw-form-tasks makes them (its shape checks are on the host already).
  Block &body = task.getBody().front();
  Block *host = task->getBlock();
  OpBuilder b(task);
  IRMapping mapping;
  mapping.map(body.getArguments(), task.getArgs());
  SmallVector<Operation *> inlined;
  for (Operation &op : body.without_terminator())
    inlined.push_back(b.clone(op, mapping));
  for (auto [result, value] :
       llvm::zip(task.getResults(), cast<YieldOp>(body.getTerminator()).getValues()))
    result.replaceAllUsesWith(mapping.lookupOrDefault(value));
  DeviceKindAttr hint = task.getHintAttr();
  bool hostChecked = task->hasAttr(kHostCheckedAttrName);
  SmallVector<SmallVector<Operation *>> hostGroups;
  for (const SmallVector<Operation *> &group : groups)
    hostGroups.push_back(llvm::map_to_vector(
        group, [&](Operation *op) { return mapping.lookup(op); }));
  task.erase();

  SmallVector<TaskOp> parts;
  for (const SmallVector<Operation *> &group : hostGroups) {
    FailureOr<TaskOp> part = formTask(group, /*emitChecks=*/false);
    if (failed(part))
      return failure();
    if (hint)
      part->setHintAttr(hint);
    if (hostChecked)
      (*part)->setAttr(kHostCheckedAttrName, b.getUnitAttr());
    parts.push_back(*part);
  }
  // The cheap producers each part recomputed are dead on the host.
  for (Operation *op : llvm::reverse(inlined))
    if (op->getBlock() == host && op->use_empty() && isMemoryEffectFree(op))
      op->erase();
  return parts;
}
