// linalg.transpose with permutation [2, 0, 1]: 4x32x16 -> 16x4x32.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=transpose --case=transpose --arg-shapes="4x32x16" --tmp=%t

func.func @transpose(%x: tensor<4x32x16xf32>) -> tensor<16x4x32xf32> {
  %init = tensor.empty() : tensor<16x4x32xf32>
  %r = linalg.transpose ins(%x : tensor<4x32x16xf32>) outs(%init : tensor<16x4x32xf32>) permutation = [2, 0, 1]
  return %r : tensor<16x4x32xf32>
}
