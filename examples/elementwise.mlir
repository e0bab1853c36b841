// An elementwise chain with a broadcast operand:
//   out[i, j] = tanh(a[i, j] * b[j] + 1) * exp(-a[i, j])
// The whole chain is one linalg.generic; the row count is dynamic.
//
//   fwc examples/elementwise.mlir -o elementwise.fwb
//   fw-run elementwise.fwb --function=main --input=@a.npy --input=@b.npy --output=@out.npy

#map_2d = affine_map<(d0, d1) -> (d0, d1)>
#map_row = affine_map<(d0, d1) -> (d1)>

func.func @main(%a: tensor<?x1024xf32>, %b: tensor<1024xf32>) -> tensor<?x1024xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %rows = tensor.dim %a, %c0 : tensor<?x1024xf32>
  %init = tensor.empty(%rows) : tensor<?x1024xf32>
  %r = linalg.generic {indexing_maps = [#map_2d, #map_row, #map_2d],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x1024xf32>, tensor<1024xf32>) outs(%init : tensor<?x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %m = arith.mulf %x, %y : f32
    %p = arith.addf %m, %one : f32
    %t = math.tanh %p : f32
    %n = arith.negf %x : f32
    %e = math.exp %n : f32
    %v = arith.mulf %t, %e : f32
    linalg.yield %v : f32
  } -> tensor<?x1024xf32>
  return %r : tensor<?x1024xf32>
}
