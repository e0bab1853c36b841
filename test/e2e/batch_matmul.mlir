// batch_matmul: 4x32x16 @ 4x16x24 -> 4x32x24.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=batch_matmul --case=batch_matmul --arg-shapes="4x32x16;4x16x24" --tmp=%t

func.func @batch_matmul(%a: tensor<4x32x16xf32>, %b: tensor<4x16x24xf32>) -> tensor<4x32x24xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x32x24xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x32x24xf32>) -> tensor<4x32x24xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x32x16xf32>, tensor<4x16x24xf32>)
                           outs(%acc : tensor<4x32x24xf32>) -> tensor<4x32x24xf32>
  return %r : tensor<4x32x24xf32>
}
