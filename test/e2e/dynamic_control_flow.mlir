// Result sizes that no op reifies are proven from the op's operands: an
// scf.for that keeps the shape of its init, a tensor.cast to a more dynamic
// type.
// RUN: %fwc %s -o %t.fwb
// RUN: %fw-run %t.fwb --function=loop --input=2x4xf32=1 | FileCheck %s --check-prefix=LOOP
// LOOP: 2x4xf32=[8 8 8 8][8 8 8 8]
// RUN: %fw-run %t.fwb --function=cast --input=3x4xf32=0 | FileCheck %s --check-prefix=CAST
// CAST: 3x4xf32=[1 1 1 1][1 1 1 1][1 1 1 1]
// A loop whose result size cannot be known before it runs is rejected.
// RUN: not %fwc %S/Inputs/loop_grows.mlir -o %t.bad.fwb 2>&1 | FileCheck %s --check-prefix=GROWS
// GROWS: loop_grows.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'scf.for' op result #0 has a dynamic size in dimension 0 that fw cannot compute before running the task

func.func @loop(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %a) -> (tensor<?x4xf32>) {
    %n = arith.addf %t, %t : tensor<?x4xf32>
    scf.yield %n : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}
func.func @cast(%a: tensor<?x4xf32>) -> tensor<?x?xf32> {
  %c = tensor.cast %a : tensor<?x4xf32> to tensor<?x?xf32>
  %e = math.exp %c : tensor<?x?xf32>
  return %e : tensor<?x?xf32>
}
