// The tasks phase's output is an input fwc compiles again: the dims of its tasks
// (here sizes computed from the operands' sizes, by a pad and a concatenation)
// are proven to be the sizes their bodies yield, and the program runs as before.
// RUN: %fwc %s --compile-to=tasks > %t.tasks.mlir
// RUN: %fwc %t.tasks.mlir -o %t.fwb
// RUN: %fw-run %t.fwb --function=pad --input=2xf32=1,2 | FileCheck %s --check-prefix=PAD
// RUN: %fw-run %t.fwb --function=concat --input=2xf32=1,2 --input=1xf32=3 | FileCheck %s --check-prefix=CONCAT
// PAD: 4xf32=0 1 2 0
// CONCAT: 3xf32=1 2 3

func.func @pad(%a: tensor<?xf32>) -> tensor<?xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %z : f32
  } : tensor<?xf32> to tensor<?xf32>
  return %p : tensor<?xf32>
}

func.func @concat(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c = tensor.concat dim(0) %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %c : tensor<?xf32>
}
