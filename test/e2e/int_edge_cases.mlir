// Integer operations whose result MLIR leaves undefined never kill the
// process: division by zero and INT_MIN / -1 divide by 1 instead (the value
// of those lanes is unspecified; fw returns the dividend). Integer powers
// are computed by a helper function.
// RUN: %fwc %s -o %t.fwb
// RUN: %fw-run %t.fwb --function=div --input=4xi32=-2147483648,7,9,8 --input=4xi32=-1,0,3,-2 | FileCheck %s --check-prefix=DIV
// DIV: 4xi32=-2147483648 7 3 -4
// RUN: %fw-run %t.fwb --function=rem --input=3xi64=5,7,9 --input=3xi64=0,2,4 | FileCheck %s --check-prefix=REM
// REM: 3xi64=0 1 1
// RUN: %fw-run %t.fwb --function=ipow --input=4xi32=2,3,-1,0 --input=4xi32=2,3,-1,0 | FileCheck %s --check-prefix=POW
// POW: 4xi32=4 27 -1 1
// Two kernels with integer powers, for two ISA levels in one fat binary: each
// kernel keeps its own helper.
// RUN: %fwc %s --targets=x86-64,x86-64-v4 -o %t.multi.fwb
// RUN: %fw-run %t.multi.fwb --function=ipow2 --input=3xi32=2,3,4 | FileCheck %s --check-prefix=POW2
// POW2: 3xi32=16 19683 0

func.func @div(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %r = arith.divsi %a, %b : tensor<4xi32>
  return %r : tensor<4xi32>
}

func.func @rem(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {
  %r = arith.remui %a, %b : tensor<3xi64>
  return %r : tensor<3xi64>
}

func.func @ipow(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %r = math.ipowi %a, %b : tensor<4xi32>
  return %r : tensor<4xi32>
}

func.func @ipow2(%a: tensor<3xi32>) -> tensor<3xi32> {
  %p = math.ipowi %a, %a : tensor<3xi32>
  %r = math.ipowi %p, %a : tensor<3xi32>
  return %r : tensor<3xi32>
}
