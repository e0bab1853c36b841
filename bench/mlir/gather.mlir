// An embedding lookup: out[i, :] = table[ids[i], :], ids read from the data, so the
// kernel checks each id as it runs (fw-task-checks). fw-bench's "gather" case.
#in = affine_map<(d0, d1) -> (d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @lookup(%table: tensor<?x64xf32>, %ids: tensor<?xi64>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %ids, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<?xi64>) outs(%e : tensor<?x64xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<?x64xf32>
    linalg.yield %v : f32
  } -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}
