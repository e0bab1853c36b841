// Signed integer division flavours on tensors: divsi / remsi (round toward zero),
// floordivsi, ceildivsi; positive and negative divisors (never zero: that is UB).
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=int_divrem --case=int_divrem_pos --arg-shapes="257;257" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=int_divrem --case=int_divrem_neg --arg-shapes="257;257" --tmp=%t

func.func @int_divrem(%a: tensor<?xi32>, %b: tensor<?xi32>)
    -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) {
  %q = arith.divsi %a, %b : tensor<?xi32>
  %r = arith.remsi %a, %b : tensor<?xi32>
  %f = arith.floordivsi %a, %b : tensor<?xi32>
  %c = arith.ceildivsi %a, %b : tensor<?xi32>
  return %q, %r, %f, %c : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>
}
