// Case 2: relu(x @ w + b) as one function: fill + matmul, then bias + ReLU in
// one linalg.generic that broadcasts the bias along the rows.
// Reference: cblas_sgemm, then a separate bias + ReLU loop.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @matmul_bias_relu(%x: tensor<1024x1024xf32>, %w: tensor<1024x1024xf32>,
                            %b: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1024x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<1024x1024xf32>, tensor<1024x1024xf32>)
                      outs(%acc : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %out = tensor.empty() : tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<1024x1024xf32>, tensor<1024xf32>) outs(%out : tensor<1024x1024xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %s = arith.addf %v, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
