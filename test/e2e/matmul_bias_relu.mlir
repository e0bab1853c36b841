// relu(x @ w + b): bias materialized with linalg.broadcast, add + relu in one generic.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=matmul_bias_relu --case=matmul_bias_relu --arg-shapes="32x64;64x48;48" --tmp=%t
// Fused (one task) and unfused (-O0) builds give the same answers.
// RUN: %fwc -O0 %s -o %t.O0.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.O0.fwb --function=matmul_bias_relu --case=matmul_bias_relu --arg-shapes="32x64;64x48;48" --tmp=%t

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @matmul_bias_relu(%x: tensor<32x64xf32>, %w: tensor<64x48xf32>, %b: tensor<48xf32>) -> tensor<32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<32x48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<32x48xf32>) -> tensor<32x48xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<32x64xf32>, tensor<64x48xf32>)
                      outs(%acc : tensor<32x48xf32>) -> tensor<32x48xf32>
  %binit = tensor.empty() : tensor<32x48xf32>
  %bb = linalg.broadcast ins(%b : tensor<48xf32>) outs(%binit : tensor<32x48xf32>) dimensions = [0]
  %out = tensor.empty() : tensor<32x48xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bb : tensor<32x48xf32>, tensor<32x48xf32>) outs(%out : tensor<32x48xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x48xf32>
  return %r : tensor<32x48xf32>
}
