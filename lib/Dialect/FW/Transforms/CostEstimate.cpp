//===- CostEstimate.cpp - Compile-time cost of a task ---------------------===//
//
// Counts a task's operations as a polynomial in the dynamic dims of its
// operands and results: each linalg op contributes (ops in its body) ×
// (product of its loop ranges), and a dynamic loop range is traced through
// inits, tensor.empty sizes and tensor.dim to a dim of a task operand or
// result, which the runtime reads from the buffers at dispatch.
//
//===----------------------------------------------------------------------===//

#include "fw/Dialect/FW/Transforms/CostEstimate.h"

#include "fw/Dialect/FW/Transforms/FormTasks.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace mlir::fw;

namespace {

/// A dim of a task binding: (operand index, or number of operands + result
/// index; dimension).
using BindingDim = std::pair<int64_t, int64_t>;

/// Finds which binding's dim equals dimension `dim` of `value`, a tensor in
/// `task`'s body: a task operand, a yielded result, or the result of an op
/// whose size follows from an init or from tensor.empty's sizes.
std::optional<BindingDim> traceDim(TaskOp task, Value value, int64_t dim) {
  Block &body = task.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  // Each step moves to an operand of an earlier op, so this ends; the bound
  // only guards against a pathological chain.
  for (int step = 0; step < 256; ++step) {
    // The binding's type must leave the dim dynamic (a static one would
    // have made the loop range static).
    if (!cast<ShapedType>(value.getType()).isDynamicDim(dim))
      return std::nullopt;
    if (auto arg = dyn_cast<BlockArgument>(value))
      return arg.getOwner() == &body
                 ? std::optional<BindingDim>({arg.getArgNumber(), dim})
                 : std::nullopt;
    for (auto [i, yielded] : llvm::enumerate(yield.getValues()))
      if (yielded == value)
        return BindingDim(task.getArgs().size() + i, dim);
    Operation *def = value.getDefiningOp();
    if (auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(def)) {
      value = dps.getDpsInitOperand(cast<OpResult>(value).getResultNumber())
                  ->get();
      continue;
    }
    auto empty = dyn_cast_or_null<tensor::EmptyOp>(def);
    if (!empty)
      return std::nullopt;
    auto size = empty.getDynamicSize(dim).getDefiningOp<tensor::DimOp>();
    std::optional<int64_t> index = size ? size.getConstantIndex() : std::nullopt;
    if (!index)
      return std::nullopt;
    value = size.getSource();
    dim = *index;
  }
  return std::nullopt;
}

/// Bytes of a static shape, or std::nullopt.
std::optional<int64_t> staticBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return std::nullopt;
  Type element = shaped.getElementType();
  if (!element.isIntOrIndexOrFloat())
    return std::nullopt;
  unsigned bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  return shaped.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

/// The operation count as terms: sorted (binding, dim) factors -> coefficient.
using Terms = std::map<SmallVector<BindingDim>, int64_t>;

/// Adds `op`'s count to `terms`; false when a loop range cannot be traced or
/// the count overflows.
bool addCount(TaskOp task, linalg::LinalgOp op, Terms &terms) {
  int64_t coefficient = 0;
  for (Operation &inner : op.getBlock()->without_terminator()) {
    (void)inner;
    ++coefficient;
  }
  coefficient = std::max<int64_t>(coefficient, 1);
  SmallVector<BindingDim> factors;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (auto [loop, range] : llvm::enumerate(op.getStaticLoopRanges())) {
    if (!ShapedType::isDynamic(range)) {
      if (llvm::MulOverflow(coefficient, range, coefficient))
        return false;
      continue;
    }
    // An operand dimension indexed by this loop alone has its size.
    std::optional<BindingDim> found;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<ShapedType>(operand.get().getType());
      if (!type || found)
        continue;
      AffineMap map = maps[operand.getOperandNumber()];
      for (auto [d, expr] : llvm::enumerate(map.getResults())) {
        auto dimExpr = dyn_cast<AffineDimExpr>(expr);
        if (!dimExpr || dimExpr.getPosition() != loop ||
            !type.isDynamicDim(d))
          continue;
        if ((found = traceDim(task, operand.get(), d)))
          break;
      }
    }
    if (!found)
      return false;
    factors.push_back(*found);
  }
  llvm::sort(factors);
  int64_t &sum = terms[factors];
  return !llvm::AddOverflow(sum, coefficient, sum);
}

} // namespace

void mlir::fw::setCostEstimate(TaskOp task) {
  task.removeFlopsAttr();
  task.removeFlopsTermsAttr();
  task.removeBytesAttr();
  Terms terms;
  std::optional<int64_t> bytes = 0;
  for (Operation &op : task.getBody().front().without_terminator()) {
    if (isRematerializable(&op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !addCount(task, linalgOp, terms))
      return;
    for (Value operand : op.getOperands()) {
      if (!isa<ShapedType>(operand.getType()) || !bytes)
        continue;
      std::optional<int64_t> b = staticBytes(operand.getType());
      if (!b || llvm::AddOverflow(*bytes, *b, *bytes))
        bytes = std::nullopt;
    }
  }
  // A term with a static size of 0 among its factors counts nothing.
  for (auto it = terms.begin(); it != terms.end();) {
    auto next = std::next(it);
    if (it->second == 0)
      terms.erase(it);
    it = next;
  }
  Builder b(task.getContext());
  if (terms.empty() || (terms.size() == 1 && terms.begin()->first.empty())) {
    task.setFlopsAttr(b.getI64IntegerAttr(terms.empty() ? 0 : terms.begin()->second));
    if (bytes)
      task.setBytesAttr(b.getI64IntegerAttr(*bytes));
    return;
  }
  SmallVector<Attribute> list;
  for (auto &[factors, coefficient] : terms) {
    if (factors.size() > kMaxFlopsTermFactors)
      return;
    SmallVector<int64_t> term = {coefficient};
    for (auto [binding, dim] : factors) {
      term.push_back(binding);
      term.push_back(dim);
    }
    list.push_back(b.getDenseI64ArrayAttr(term));
  }
  task.setFlopsTermsAttr(b.getArrayAttr(list));
}
