// Case 4b: sum over the last axis of a 4096x4096 f32 matrix (linalg.reduce).
// Reference: a plain C loop per row.

func.func @row_sum(%x: tensor<4096x4096xf32>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4096xf32>) -> tensor<4096xf32>
  %r = linalg.reduce ins(%x : tensor<4096x4096xf32>) outs(%acc : tensor<4096xf32>) dimensions = [1]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4096xf32>
}
