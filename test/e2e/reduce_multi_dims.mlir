// linalg.reduce over two dims ([0, 2]) of a tensor with dynamic outer dims, and over every
// dim down to a rank-0 tensor, including empty reductions (the result is the init, 0).
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=reduce_sum_dims02 --case=reduce_sum_dims02 --arg-shapes="3x5x7" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=reduce_sum_dims02 --case=reduce_sum_dims02 --arg-shapes="40x5x1" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=reduce_sum_dims02 --case=reduce_sum_dims02 --arg-shapes="0x5x7" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=reduce_sum_all --case=reduce_sum_all --arg-shapes="7x9" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=reduce_sum_all --case=reduce_sum_all --arg-shapes="0x9" --tmp=%t

func.func @reduce_sum_dims02(%x: tensor<?x5x?xf32>) -> tensor<5xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<5xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<5xf32>) -> tensor<5xf32>
  %r = linalg.reduce ins(%x : tensor<?x5x?xf32>) outs(%acc : tensor<5xf32>) dimensions = [0, 2]
    (%v: f32, %a: f32) {
      %s = arith.addf %v, %a : f32
      linalg.yield %s : f32
    }
  return %r : tensor<5xf32>
}

func.func @reduce_sum_all(%x: tensor<?x?xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<?x?xf32>) outs(%acc : tensor<f32>) dimensions = [0, 1]
    (%v: f32, %a: f32) {
      %s = arith.addf %v, %a : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}
