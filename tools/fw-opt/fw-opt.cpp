//===- fw-opt.cpp - Pass driver for debugging fw pipelines ----------------===//
//
// Like mlir-opt, with the fw dialect, fw passes and the fwc pipeline
// registered next to upstream MLIR's dialects and passes.
//
//===----------------------------------------------------------------------===//

#include "fw/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::fw::registerFwPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::fw::registerFwDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fw pass driver\n", registry));
}
