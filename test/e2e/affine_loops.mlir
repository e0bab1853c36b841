// Affine loops and branches over tensors (a program exported with them) run as
// the SCF ones they become: loops carrying tensors, bounds from sizes and
// affine maps, and their indices checked like any, the messages naming the op
// the program wrote.
// RUN: %fwc %s -o %t.fwb
// RUN: %fw-run %t.fwb --function=doubled_four_times --input=4xf32=1,2,3,-1 | FileCheck %s --check-prefix=FOUR
// FOUR: 4xf32=16 32 48 -16
// RUN: %fw-run %t.fwb --function=double_first --input=4xf32=1,2,3,4 --input=3xf32=0 | FileCheck %s --check-prefix=FIRST
// FIRST: 4xf32=2 4 6 4
// RUN: not %fw-run %t.fwb --function=double_first --input=4xf32=1,2,3,4 --input=5xf32=0 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: 'affine.for': 'tensor.extract' in its body: the index into dimension 0 goes out of range over the iterations (
// PAST-SAME: affine_loops.mlir:{{[0-9]+}})
// RUN: %fw-run %t.fwb --function=pairs_summed --input=7xf32=1,2,3,4,5,6,7 | FileCheck %s --check-prefix=PAIRS
// PAIRS: 7xf32=3 2 7 4 11 6 7
// RUN: %fw-run %t.fwb --function=odd_or_even --input=3xf32=1,2,3 | FileCheck %s --check-prefix=ODD
// ODD: 3xf32=-1 -2 -3
// RUN: %fw-run %t.fwb --function=odd_or_even --input=2xf32=1,2 | FileCheck %s --check-prefix=EVEN
// EVEN: 2xf32=2 4

func.func @doubled_four_times(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = affine.for %i = 0 to 4 iter_args(%t = %a) -> tensor<4xf32> {
    %u = arith.addf %t, %t : tensor<4xf32>
    affine.yield %u : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Doubles the first n elements, n the size of the second input.
func.func @double_first(%a: tensor<?xf32>, %nt: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %nt, %c0 : tensor<?xf32>
  %r = affine.for %i = 0 to %n iter_args(%t = %a) -> tensor<?xf32> {
    %x = tensor.extract %t[%i] : tensor<?xf32>
    %y = arith.addf %x, %x : f32
    %u = tensor.insert %y into %t[%i] : tensor<?xf32>
    affine.yield %u : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// Adds each odd element to the even one before it (bounds from an affine map
// of the size, a step of 2).
func.func @pairs_summed(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %r = affine.for %i = 0 to affine_map<()[s0] -> (s0 - 1)>()[%n] step 2
      iter_args(%t = %a) -> tensor<?xf32> {
    %j = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)
    %x = tensor.extract %t[%i] : tensor<?xf32>
    %y = tensor.extract %t[%j] : tensor<?xf32>
    %s = arith.addf %x, %y : f32
    %u = tensor.insert %s into %t[%i] : tensor<?xf32>
    affine.yield %u : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// Negated when the size is odd, doubled when it is even.
func.func @odd_or_even(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %r = affine.if affine_set<(d0) : (d0 mod 2 - 1 == 0)>(%n) -> tensor<?xf32> {
    %m = arith.negf %a : tensor<?xf32>
    affine.yield %m : tensor<?xf32>
  } else {
    %d = arith.addf %a, %a : tensor<?xf32>
    affine.yield %d : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
