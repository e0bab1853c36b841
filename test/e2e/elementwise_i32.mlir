// Signed integer arithmetic: out = max(a*b + a, b - 7).
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=elementwise_i32 --case=elementwise_i32 --arg-shapes="16x100;16x100" --tmp=%t

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @elementwise_i32(%a: tensor<16x100xi32>, %b: tensor<16x100xi32>) -> tensor<16x100xi32> {
  %seven = arith.constant 7 : i32
  %init = tensor.empty() : tensor<16x100xi32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<16x100xi32>, tensor<16x100xi32>) outs(%init : tensor<16x100xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %m = arith.muli %x, %y : i32
    %s = arith.addi %m, %x : i32
    %d = arith.subi %y, %seven : i32
    %v = arith.maxsi %s, %d : i32
    linalg.yield %v : i32
  } -> tensor<16x100xi32>
  return %r : tensor<16x100xi32>
}
