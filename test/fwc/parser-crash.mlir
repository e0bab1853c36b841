// Some malformed attributes crash upstream MLIR's linalg parsers after they
// report the error; fwc still exits with code 1 and a message, no signal.
// RUN: not %fwc %s -o %t.fwb 2>&1 | FileCheck %s
// CHECK: parser-crash.mlir:[[@LINE+4]]:{{[0-9]+}}: error: expected '['
// CHECK: fwc: error: stopped after the errors above
func.func @f(%a: tensor<4x8xf32>) -> tensor<8xf32> {
  %i = tensor.empty() : tensor<8xf32>
  %r = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%i : tensor<8xf32>) dimensions = 0]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8xf32>
}
