// Softmax over the last axis, written as generics: max-reduce, sub+exp, sum-reduce, div.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=softmax --case=softmax --arg-shapes="8x128" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=softmax --case=softmax --arg-shapes="31x128" --tmp=%t

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @softmax(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x128xf32>

  %m0 = tensor.empty(%n) : tensor<?xf32>
  %m1 = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x128xf32>) outs(%m1 : tensor<?xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.maximumf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>

  %e0 = tensor.empty(%n) : tensor<?x128xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x128xf32>, tensor<?xf32>) outs(%e0 : tensor<?x128xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x128xf32>

  %s0 = tensor.empty(%n) : tensor<?xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<?x128xf32>) outs(%s1 : tensor<?xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>

  %o0 = tensor.empty(%n) : tensor<?x128xf32>
  %out = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<?x128xf32>, tensor<?xf32>) outs(%o0 : tensor<?x128xf32>) {
  ^bb0(%e: f32, %s: f32, %o: f32):
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  } -> tensor<?x128xf32>
  return %out : tensor<?x128xf32>
}
