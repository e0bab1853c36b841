//===- CPUWorkgroupArgs.cpp - Workgroup id and count as arguments ---------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

namespace mlir::fw {
#define GEN_PASS_DEF_CPUWORKGROUPARGSPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// Marks a kernel whose last two arguments are its workgroup id and count.
static constexpr llvm::StringLiteral kWorkgroupsAttr = "fw.workgroups";

namespace {

struct CPUWorkgroupArgsPass
    : public fw::impl::CPUWorkgroupArgsPassBase<CPUWorkgroupArgsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<Operation *> ids, counts;
    func.walk([&](Operation *op) {
      if (isa<WorkgroupIdOp>(op))
        ids.push_back(op);
      else if (isa<WorkgroupCountOp>(op))
        counts.push_back(op);
    });
    if (ids.empty() && counts.empty())
      return;
    if (func.isExternal() || func->hasAttr(kWorkgroupsAttr)) {
      func.emitOpError("has workgroup ops but cannot take them as arguments");
      return signalPassFailure();
    }
    Type index = IndexType::get(&getContext());
    unsigned n = func.getNumArguments();
    if (failed(func.insertArguments({n, n}, {index, index},
                                    {DictionaryAttr(), DictionaryAttr()},
                                    {func.getLoc(), func.getLoc()})))
      return signalPassFailure();
    Value id = func.getArgument(n), count = func.getArgument(n + 1);
    for (Operation *op : ids) {
      op->getResult(0).replaceAllUsesWith(id);
      op->erase();
    }
    for (Operation *op : counts) {
      op->getResult(0).replaceAllUsesWith(count);
      op->erase();
    }
    func->setAttr(kWorkgroupsAttr, UnitAttr::get(&getContext()));
  }
};

} // namespace
