//===- Workgroups.cpp - Dividing a CPU kernel among workgroups ------------===//

#include "fw/Dialect/FW/Transforms/Workgroups.h"

#include "fw/Dialect/FW/IR/FWOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::fw;

std::pair<Value, Value> mlir::fw::getWorkgroupIdAndCount(func::FuncOp func) {
  Block &entry = func.getBody().front();
  WorkgroupIdOp id;
  WorkgroupCountOp count;
  for (Operation &op : entry) {
    if (auto i = dyn_cast<WorkgroupIdOp>(op))
      id = i;
    if (auto c = dyn_cast<WorkgroupCountOp>(op))
      count = c;
  }
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  if (!id)
    id = WorkgroupIdOp::create(b, func.getLoc(), b.getIndexType());
  if (!count)
    count = WorkgroupCountOp::create(b, func.getLoc(), b.getIndexType());
  return {id, count};
}

std::pair<Value, Value> mlir::fw::getWorkgroupRange(OpBuilder &b, Location loc,
                                                    func::FuncOp func,
                                                    Value size,
                                                    int64_t granule) {
  auto [workgroupId, workgroupCount] = getWorkgroupIdAndCount(func);
  Value id = workgroupId, count = workgroupCount;
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value g = cst(granule);
  Value units = arith::CeilDivUIOp::create(b, loc, size, g);
  // lo = units * id / count granules, hi = units * (id + 1) / count.
  auto boundary = [&](Value k) {
    Value part = arith::DivUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, units, k), count);
    return arith::MinUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, part, g), size);
  };
  Value lo = boundary(id);
  Value hi = boundary(arith::AddIOp::create(b, loc, id, cst(1)));
  return {lo, hi};
}
