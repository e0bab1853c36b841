// Case 1: C = A @ B, f32, square, static shapes (linalg.fill + linalg.matmul).
// Reference: cblas_sgemm (OpenBLAS, one thread).

func.func @matmul_1024(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1024x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %c = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>)
                     outs(%acc : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %c : tensor<1024x1024xf32>
}

func.func @matmul_2048(%a: tensor<2048x2048xf32>, %b: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2048x2048xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %c = linalg.matmul ins(%a, %b : tensor<2048x2048xf32>, tensor<2048x2048xf32>)
                     outs(%acc : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %c : tensor<2048x2048xf32>
}
