// A chain of ops: C = A @ B (32x48), T = transpose(C) (48x32), out = sum over T's last axis (48).
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=chain --case=chain --arg-shapes="32x64;64x48" --tmp=%t

func.func @chain(%a: tensor<32x64xf32>, %b: tensor<64x48xf32>) -> tensor<48xf32> {
  %zero = arith.constant 0.0 : f32
  %cinit = tensor.empty() : tensor<32x48xf32>
  %cacc = linalg.fill ins(%zero : f32) outs(%cinit : tensor<32x48xf32>) -> tensor<32x48xf32>
  %c = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x48xf32>)
                     outs(%cacc : tensor<32x48xf32>) -> tensor<32x48xf32>
  %tinit = tensor.empty() : tensor<48x32xf32>
  %t = linalg.transpose ins(%c : tensor<32x48xf32>) outs(%tinit : tensor<48x32xf32>) permutation = [1, 0]
  %rinit = tensor.empty() : tensor<48xf32>
  %racc = linalg.fill ins(%zero : f32) outs(%rinit : tensor<48xf32>) -> tensor<48xf32>
  %r = linalg.reduce ins(%t : tensor<48x32xf32>) outs(%racc : tensor<48xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<48xf32>
}
