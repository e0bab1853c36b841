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
// Inside a task, a loop may grow a tensor it starts from a cast of a static
// one; its size is what the loop made of it (upstream canonicalization folded
// the cast into the loop, which then kept the static size: 1).
// RUN: %fw-run %t.fwb --function=doublings --input=1xi64=3 | FileCheck %s --check-prefix=DOUBLED
// DOUBLED: i64=8
// RUN: %fw-run %t.fwb --function=doublings --input=1xi64=0 | FileCheck %s --check-prefix=ONCE
// ONCE: i64=1
// A forall whose parallel inserts are written in another order than its
// shared outputs, one of them a cast: each output gets its own (upstream
// canonicalization of the cast swapped them).
// RUN: %fw-run %t.fwb --function=ones_and_twos --input=4xf32=0 --input=4xf32=0 | FileCheck %s --check-prefix=ONESTWOS
// ONESTWOS: 4xf32=1 1 1 1
// ONESTWOS: 4xf32=2 2 2 2

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

// The size of a one-element tensor doubled %n[0] times.
func.func @doublings(%n: tensor<1xi64>) -> tensor<i64> {
  %r = fw.task(%n) : (tensor<1xi64>) -> tensor<i64> {
  ^bb0(%p: tensor<1xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i8
    %k64 = tensor.extract %p[%c0] : tensor<1xi64>
    %k = arith.index_cast %k64 : i64 to index
    %s0 = tensor.splat %one : tensor<1xi8>
    %s1 = tensor.cast %s0 : tensor<1xi8> to tensor<?xi8>
    %acc = scf.for %i = %c0 to %k step %c1 iter_args(%a = %s1) -> tensor<?xi8> {
      %cc = tensor.concat dim(0) %a, %a : (tensor<?xi8>, tensor<?xi8>) -> tensor<?xi8>
      scf.yield %cc : tensor<?xi8>
    }
    %d = tensor.dim %acc, %c0 : tensor<?xi8>
    %d64 = arith.index_cast %d : index to i64
    %t = tensor.from_elements %d64 : tensor<i64>
    fw.yield %t : tensor<i64>
  }
  return %r : tensor<i64>
}

// 1s into the first output, 2s into the second.
func.func @ones_and_twos(%A: tensor<4xf32>, %B: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = fw.task(%A, %B) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %one = arith.constant dense<1.0> : tensor<1xf32>
    %two = arith.constant dense<2.0> : tensor<1xf32>
    %ca = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
    %w:2 = scf.forall (%i) in (4) shared_outs(%oa = %ca, %ob = %b) -> (tensor<?xf32>, tensor<4xf32>) {
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %two into %ob[%i] [1] [1] : tensor<1xf32> into tensor<4xf32>
        tensor.parallel_insert_slice %one into %oa[%i] [1] [1] : tensor<1xf32> into tensor<?xf32>
      }
    }
    %ra = tensor.cast %w#0 : tensor<?xf32> to tensor<4xf32>
    fw.yield %ra, %w#1 : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
