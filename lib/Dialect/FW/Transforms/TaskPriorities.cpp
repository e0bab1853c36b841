//===- TaskPriorities.cpp - Levels and upward ranks of dispatches ---------===//
//
// The static part of scheduling: which dispatches are independent (levels)
// and which matter most for the critical path (upward rank, as in HEFT).
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"
#include "fw/Dialect/FW/Transforms/ProfileAttrs.h"

#include "mlir/IR/Remarks.h"

#include "llvm/ADT/DenseMap.h"

#include <cmath>

namespace mlir::fw {
#define GEN_PASS_DEF_TASKPRIORITIESPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

static constexpr llvm::StringLiteral kLevelAttrName = "fw.level";
static constexpr llvm::StringLiteral kPriorityAttrName = "fw.priority";

/// The size a dynamic dim is taken to have when ranking: the ranks need the
/// executables' costs relative to each other, and the terms of one call's
/// executables are mostly in the same dims (its batch).
static constexpr double kNominalDynamicSize = 1024;

/// The estimated cost of running `exe` once.
static double getCost(ExecutableOp exe) {
  if (exe && exe.getFlops() && *exe.getFlops() > 0)
    return static_cast<double>(*exe.getFlops());
  if (ArrayAttr terms = exe ? exe.getFlopsTermsAttr() : nullptr) {
    double flops = 0;
    for (Attribute attr : terms) {
      ArrayRef<int64_t> term = cast<DenseI64ArrayAttr>(attr).asArrayRef();
      flops += static_cast<double>(term[0]) *
               std::pow(kNominalDynamicSize, (term.size() - 1) / 2);
    }
    return flops;
  }
  if (exe && exe.getBytes() && *exe.getBytes() > 0)
    return static_cast<double>(*exe.getBytes());
  return 1.0;
}

/// Annotates the dispatches of one host function.
static void rankDispatches(func::FuncOp func, SymbolTable &symbols,
                           llvm::DenseMap<ExecutableOp, double> &exeRanks) {
  SmallVector<DispatchOp> dispatches;
  func.walk([&](DispatchOp op) { dispatches.push_back(op); });
  size_t n = dispatches.size();
  if (n == 0)
    return;

  // Dependences in program order from buffer accesses (and explicit tokens).
  SmallVector<SmallVector<size_t>> preds(n), succs(n);
  llvm::DenseMap<Value, size_t> lastWriter;
  llvm::DenseMap<Value, SmallVector<size_t>> readersSinceWrite;
  llvm::DenseMap<Value, size_t> tokenOf;
  auto addEdge = [&](size_t from, size_t to) {
    if (from == to || llvm::is_contained(preds[to], from))
      return;
    preds[to].push_back(from);
    succs[from].push_back(to);
  };
  for (auto [i, op] : llvm::enumerate(dispatches)) {
    tokenOf[op.getToken()] = i;
    for (Value token : op.getAfter())
      if (auto it = tokenOf.find(token); it != tokenOf.end())
        addEdge(it->second, i);
    for (auto [buffer, accessAttr] :
         llvm::zip(op.getBuffers(), op.getAccess())) {
      Access access = cast<AccessAttr>(accessAttr).getValue();
      bool reads = access != Access::write;
      bool writes = access != Access::read;
      if (auto it = lastWriter.find(buffer); it != lastWriter.end())
        addEdge(it->second, i); // RAW and WAW
      if (writes) {
        for (size_t reader : readersSinceWrite[buffer])
          addEdge(reader, i); // WAR
        readersSinceWrite[buffer].clear();
        lastWriter[buffer] = i;
      }
      if (reads)
        readersSinceWrite[buffer].push_back(i);
    }
  }

  // Levels forward, upward ranks backward (program order is topological).
  SmallVector<int64_t> level(n, 0);
  SmallVector<double> rank(n, 0.0);
  SmallVector<ExecutableOp> exes(n);
  for (size_t i = 0; i < n; ++i) {
    exes[i] = symbols.lookup<ExecutableOp>(dispatches[i].getCallee());
    for (size_t p : preds[i])
      level[i] = std::max(level[i], level[p] + 1);
  }
  // Measured times rank the dispatches when every one of them was measured;
  // otherwise the estimates do (the two do not compare).
  bool measured = llvm::all_of(exes, [](ExecutableOp exe) {
    return getMeasuredSeconds(exe).has_value();
  });
  if (measured)
    remark::passed(func.getLoc(), remark::RemarkOpts::name("Priorities")
                                      .category("fw-profile")
                                      .function(func.getSymName()))
        << ("dispatches of " + func.getSymName() +
            " ranked by measured times instead of flop estimates")
               .str();
  double maxRank = 0;
  for (size_t i = n; i-- > 0;) {
    double below = 0;
    for (size_t s : succs[i])
      below = std::max(below, rank[s]);
    rank[i] = (measured ? *getMeasuredSeconds(exes[i]) : getCost(exes[i])) + below;
    maxRank = std::max(maxRank, rank[i]);
  }
  Builder b(func.getContext());
  for (size_t i = 0; i < n; ++i) {
    // Scaled to 1..2^31 so priorities of one function compare as ranks do.
    int64_t priority =
        maxRank > 0
            ? 1 + static_cast<int64_t>(rank[i] / maxRank * double((1u << 31) - 2))
            : 1;
    dispatches[i]->setAttr(kLevelAttrName, b.getI64IntegerAttr(level[i]));
    dispatches[i]->setAttr(kPriorityAttrName, b.getI64IntegerAttr(priority));
    if (exes[i]) {
      double &best = exeRanks[exes[i]];
      best = std::max(best, static_cast<double>(priority));
    }
  }
}

namespace {

struct TaskPrioritiesPass
    : public fw::impl::TaskPrioritiesPassBase<TaskPrioritiesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    llvm::DenseMap<ExecutableOp, double> exeRanks;
    for (auto func : module.getOps<func::FuncOp>())
      rankDispatches(func, symbols, exeRanks);
    Builder b(&getContext());
    for (auto [exe, priority] : exeRanks)
      exe->setAttr(kPriorityAttrName,
                   b.getI64IntegerAttr(static_cast<int64_t>(priority)));
  }
};

} // namespace
