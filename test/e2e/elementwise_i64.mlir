// 64-bit integer arithmetic (values exceed 32 bits): out = min(a*b, a - b) + 3000000000.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=elementwise_i64 --case=elementwise_i64 --arg-shapes="37;37" --tmp=%t

#id = affine_map<(d0) -> (d0)>

func.func @elementwise_i64(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %k = arith.constant 3000000000 : i64
  %n = tensor.dim %a, %c0 : tensor<?xi64>
  %init = tensor.empty(%n) : tensor<?xi64>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xi64>, tensor<?xi64>) outs(%init : tensor<?xi64>) {
  ^bb0(%x: i64, %y: i64, %o: i64):
    %m = arith.muli %x, %y : i64
    %d = arith.subi %x, %y : i64
    %mn = arith.minsi %m, %d : i64
    %v = arith.addi %mn, %k : i64
    linalg.yield %v : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}
