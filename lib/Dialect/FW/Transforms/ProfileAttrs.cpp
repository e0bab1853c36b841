//===- ProfileAttrs.cpp - Reading what profile-guided passes leave ---------===//

#include "fw/Dialect/FW/Transforms/ProfileAttrs.h"

#include "fw/Dialect/FW/IR/FWOps.h"

using namespace mlir;
using namespace mlir::fw;

std::optional<double> mlir::fw::getMeasuredSeconds(ExecutableOp exe) {
  auto profile = exe ? exe->getAttrOfType<DictionaryAttr>(kProfileAttrName) : nullptr;
  if (!profile)
    return std::nullopt;
  std::optional<double> best;
  for (NamedAttribute entry : profile) {
    auto seconds = dyn_cast<FloatAttr>(entry.getValue());
    if (!seconds)
      continue;
    bool onHint = exe.getHint() &&
                  ((*exe.getHint() == DeviceKind::cpu) == (entry.getName() == "cpu"));
    if (onHint)
      return seconds.getValueAsDouble();
    best = std::min(best.value_or(seconds.getValueAsDouble()), seconds.getValueAsDouble());
  }
  return best;
}
