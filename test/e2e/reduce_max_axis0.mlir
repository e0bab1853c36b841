// Max over axis 0 (dynamic) with linalg.generic and a -inf initial value.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=reduce_max_axis0 --case=reduce_max_axis0 --arg-shapes="30x48" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=reduce_max_axis0 --case=reduce_max_axis0 --arg-shapes="1x48" --tmp=%t

#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d1)>

func.func @reduce_max_axis0(%x: tensor<?x48xf32>) -> tensor<48xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %init = tensor.empty() : tensor<48xf32>
  %acc = linalg.fill ins(%ninf : f32) outs(%init : tensor<48xf32>) -> tensor<48xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x48xf32>) outs(%acc : tensor<48xf32>) {
  ^bb0(%v: f32, %a: f32):
    %m = arith.maximumf %v, %a : f32
    linalg.yield %m : f32
  } -> tensor<48xf32>
  return %r : tensor<48xf32>
}
