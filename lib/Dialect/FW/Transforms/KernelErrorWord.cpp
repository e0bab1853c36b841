//===- KernelErrorWord.cpp - Kernel assertions onto an error word ---------===//
//
// A kernel cannot stop its task: a failed assertion records its number in a
// word the runtime hands the launch, and the runtime fails the task with the
// executable's message of that number once the kernel has ended. Check k of
// n records n + 1 - k as an atomic maximum: the first check in the kernel's
// order that failed is reported, whichever thread got there first.
//
// A CPU kernel that allocates buffers of its own (or packs panels for a
// contraction) gets one more check, after the executable's others: the
// machine refusing such a buffer (fw-cpu-allocation-checks makes the kernel
// return there).
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::fw {
#define GEN_PASS_DEF_KERNELERRORWORDPASS
#include "fw/Dialect/FW/Transforms/Passes.h.inc"
} // namespace mlir::fw

using namespace mlir;
using namespace mlir::fw;

/// Marks a kernel whose argument after its bindings is its error word.
static constexpr llvm::StringLiteral kErrorWordAttr = "fw.error_word";
/// The message of a kernel's buffer the machine did not give.
static constexpr llvm::StringLiteral kOutOfMemoryMessage =
    "out of memory: the kernel could not allocate a buffer of its own";

/// Whether `kernel` allocates buffers of its own, or may on the CPU: its
/// contractions and convolutions (linalg ops that reduce) get packed panels
/// (fw-cpu-matmul).
static bool allocates(func::FuncOp kernel) {
  return kernel
      .walk([](Operation *op) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        return isa<memref::AllocOp>(op) ||
                       (linalgOp && linalgOp.getNumReductionLoops() > 0)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

namespace {

struct KernelErrorWordPass
    : public fw::impl::KernelErrorWordPassBase<KernelErrorWordPass> {
  void runOnOperation() override {
    for (ExecutableOp exe : getOperation().getOps<ExecutableOp>())
      if (failed(lower(exe)))
        return signalPassFailure();
  }

  LogicalResult lower(ExecutableOp exe) {
    // The executable's messages, numbered from 1 in order of appearance.
    llvm::MapVector<StringAttr, int32_t> numbers;
    SmallVector<AssertOp> asserts;
    exe.walk([&](AssertOp op) {
      asserts.push_back(op);
      numbers.insert({op.getMessageAttr(), numbers.size() + 1});
    });
    SmallVector<func::FuncOp> allocating;
    for (VariantOp variant : exe.getOps<VariantOp>()) {
      if (!isa<CPUTargetAttr>(variant.getTarget()))
        continue;
      auto kernel = variant.getInnerModule().lookupSymbol<func::FuncOp>(
          exe.getSymName());
      if (kernel && allocates(kernel))
        allocating.push_back(kernel);
    }
    if (asserts.empty() && allocating.empty())
      return success();
    MLIRContext *ctx = exe.getContext();
    StringAttr outOfMemory = StringAttr::get(ctx, kOutOfMemoryMessage);
    if (!allocating.empty())
      numbers.insert({outOfMemory, numbers.size() + 1});
    if (numbers.size() > static_cast<size_t>(INT32_MAX))
      return exe.emitOpError("has more checks than an error word can number");
    SmallVector<Attribute> messages;
    for (auto &entry : numbers)
      messages.push_back(entry.first);
    exe.setChecksAttr(ArrayAttr::get(ctx, messages));
    // What check `message` records in the word.
    auto recorded = [&](StringAttr message) -> int32_t {
      return numbers.size() + 1 - numbers.lookup(message);
    };

    auto wordType = MemRefType::get({}, IntegerType::get(ctx, 32));
    llvm::DenseMap<func::FuncOp, Value> words;
    auto wordOf = [&](func::FuncOp kernel) -> FailureOr<Value> {
      Value &word = words[kernel];
      if (word)
        return word;
      if (kernel->hasAttr(kErrorWordAttr))
        return kernel.emitOpError("already has an error word");
      unsigned n = kernel.getNumArguments();
      if (failed(kernel.insertArgument(n, wordType, DictionaryAttr(),
                                       kernel.getLoc())))
        return failure();
      kernel->setAttr(kErrorWordAttr, UnitAttr::get(ctx));
      word = kernel.getArgument(n);
      return word;
    };
    OpBuilder b(ctx);
    for (AssertOp op : asserts) {
      auto kernel = op->getParentOfType<func::FuncOp>();
      auto variant = op->getParentOfType<VariantOp>();
      if (!kernel || !variant ||
          kernel.getSymName() != exe.getSymName() ||
          kernel->getParentOp() != variant.getInnerModule())
        return op.emitOpError(
            "is outside the kernel of its variant; only the kernel gets the "
            "error word");
      FailureOr<Value> word = wordOf(kernel);
      if (failed(word))
        return failure();
      Location loc = op.getLoc();
      b.setInsertionPoint(op);
      Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
      Value failedCheck =
          arith::XOrIOp::create(b, loc, op.getCondition(), yes);
      auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, failedCheck,
                                    /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value number = arith::ConstantIntOp::create(
          b, loc, recorded(op.getMessageAttr()), 32);
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::maxu, number,
                                  *word, ValueRange{});
      op.erase();
    }
    for (func::FuncOp kernel : allocating) {
      if (failed(wordOf(kernel)))
        return failure();
      kernel->setAttr(kAllocationCheckAttrName,
                      b.getI32IntegerAttr(recorded(outOfMemory)));
    }
    return success();
  }
};

} // namespace
