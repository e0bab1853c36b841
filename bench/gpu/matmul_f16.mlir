// GPU benchmark (scripts/gpu-check.sh): a 4096x4096x4096 f16 matmul accumulating in f32,
// as cuBLAS does for half inputs.
func.func @matmul_f16(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x4096xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %r = arith.truncf %m : tensor<4096x4096xf32> to tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}
