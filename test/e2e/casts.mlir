// Element type conversions on tensors: sitofp, fptosi (toward zero), truncf f32->f16,
// extf f16->f32, extsi i32->i64, trunci i32->i1 (bit 0), with .npy inputs of three types.
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=casts --case=casts --arg-shapes="100;100;100" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=casts --case=casts --arg-shapes="0;0;0" --tmp=%t

func.func @casts(%a: tensor<?xi32>, %x: tensor<?xf32>, %h: tensor<?xf16>)
    -> (tensor<?xf32>, tensor<?xi32>, tensor<?xf16>, tensor<?xf32>, tensor<?xi64>, tensor<?xi1>) {
  %1 = arith.sitofp %a : tensor<?xi32> to tensor<?xf32>
  %2 = arith.fptosi %x : tensor<?xf32> to tensor<?xi32>
  %3 = arith.truncf %x : tensor<?xf32> to tensor<?xf16>
  %4 = arith.extf %h : tensor<?xf16> to tensor<?xf32>
  %5 = arith.extsi %a : tensor<?xi32> to tensor<?xi64>
  %6 = arith.trunci %a : tensor<?xi32> to tensor<?xi1>
  return %1, %2, %3, %4, %5, %6 : tensor<?xf32>, tensor<?xi32>, tensor<?xf16>, tensor<?xf32>, tensor<?xi64>, tensor<?xi1>
}
