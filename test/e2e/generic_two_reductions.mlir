// One linalg.generic with two reduction outputs (row sum and row max), fully dynamic,
// including rows of length 0 (sum 0, max -inf) and zero rows.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=sum_and_max_rows --case=sum_and_max_rows --arg-shapes="6x9" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=sum_and_max_rows --case=sum_and_max_rows --arg-shapes="6x0" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=sum_and_max_rows --case=sum_and_max_rows --arg-shapes="0x5" --tmp=%t

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @sum_and_max_rows(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%s0, %m0 : tensor<?xf32>, tensor<?xf32>) {
  ^bb0(%v: f32, %s: f32, %m: f32):
    %s1 = arith.addf %v, %s : f32
    %m1 = arith.maximumf %v, %m : f32
    linalg.yield %s1, %m1 : f32, f32
  } -> (tensor<?xf32>, tensor<?xf32>)
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}
