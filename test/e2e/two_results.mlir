// A function with two results of different shapes: (a * b, sum_j (a + b)[i, j]).
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=two_results --case=two_results --arg-shapes="12x40;12x40" --tmp=%t

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @two_results(%a: tensor<?x40xf32>, %b: tensor<?x40xf32>) -> (tensor<?x40xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x40xf32>
  %pinit = tensor.empty(%n) : tensor<?x40xf32>
  %prod = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x40xf32>, tensor<?x40xf32>) outs(%pinit : tensor<?x40xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<?x40xf32>
  %sinit = tensor.empty(%n) : tensor<?xf32>
  %sacc = linalg.fill ins(%zero : f32) outs(%sinit : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<?x40xf32>, tensor<?x40xf32>) outs(%sacc : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %acc : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %prod, %sum : tensor<?x40xf32>, tensor<?xf32>
}
