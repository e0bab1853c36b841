// A two-layer perceptron with a dynamic batch dimension:
//   h = relu(x @ w1 + b1);  y = relu(h @ w2 + b2)
//
//   fwc examples/mlp.mlir -o mlp.fwb
//   fw-run mlp.fwb --function=main --input=@x.npy --input=@w1.npy --input=@b1.npy \
//          --input=@w2.npy --input=@b2.npy --output=@y.npy
//
// Pure linalg-on-tensors: matmul, broadcast-add + ReLU as one linalg.generic per layer.

#map_2d = affine_map<(d0, d1) -> (d0, d1)>
#map_row = affine_map<(d0, d1) -> (d1)>

func.func @main(%x: tensor<?x784xf32>, %w1: tensor<784x256xf32>, %b1: tensor<256xf32>,
                %w2: tensor<256x10xf32>, %b2: tensor<10xf32>) -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %batch = tensor.dim %x, %c0 : tensor<?x784xf32>

  // Layer 1: 784 -> 256
  %e1 = tensor.empty(%batch) : tensor<?x256xf32>
  %acc1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x256xf32>) -> tensor<?x256xf32>
  %mm1 = linalg.matmul ins(%x, %w1 : tensor<?x784xf32>, tensor<784x256xf32>)
                       outs(%acc1 : tensor<?x256xf32>) -> tensor<?x256xf32>
  %h = linalg.generic {indexing_maps = [#map_2d, #map_row, #map_2d],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm1, %b1 : tensor<?x256xf32>, tensor<256xf32>) outs(%e1 : tensor<?x256xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x256xf32>

  // Layer 2: 256 -> 10
  %e2 = tensor.empty(%batch) : tensor<?x10xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x10xf32>) -> tensor<?x10xf32>
  %mm2 = linalg.matmul ins(%h, %w2 : tensor<?x256xf32>, tensor<256x10xf32>)
                       outs(%acc2 : tensor<?x10xf32>) -> tensor<?x10xf32>
  %y = linalg.generic {indexing_maps = [#map_2d, #map_row, #map_2d],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm2, %b2 : tensor<?x10xf32>, tensor<10xf32>) outs(%e2 : tensor<?x10xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x10xf32>
  return %y : tensor<?x10xf32>
}
