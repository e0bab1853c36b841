// Input nested deeper than the compiler's stack holds ends in an error and
// exit code 1, not a segmentation fault.
// RUN: %python -c "n = 100000; print('func.func @f(%%a: tensor<4xf32>) -> tensor<4xf32> attributes {x = ' + '[' * n + ']' * n + '} {\n  return %%a : tensor<4xf32>\n}')" > %t.mlir
// RUN: not %fwc %t.mlir -o %t.fwb 2>&1 | FileCheck %s
// CHECK: fwc: error: the input is nested too deeply (the compiler ran out of stack)
