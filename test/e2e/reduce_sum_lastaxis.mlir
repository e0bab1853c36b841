// Sum over the last axis with linalg.reduce.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=reduce_sum_lastaxis --case=reduce_sum_lastaxis --arg-shapes="64x100" --tmp=%t

func.func @reduce_sum_lastaxis(%x: tensor<64x100xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.reduce ins(%x : tensor<64x100xf32>) outs(%acc : tensor<64xf32>) dimensions = [1]
    (%in: f32, %a: f32) {
      %s = arith.addf %in, %a : f32
      linalg.yield %s : f32
    }
  return %r : tensor<64xf32>
}
