// tensor.gather and tensor.scatter (rewritten by fw-prepare-input into a
// linalg.generic that reads its indices and an scf.forall of slice inserts):
// rows and points, indices of integer or index type, ranks reduced or not; an
// index out of range or sizes that disagree fail with a message naming the op.
// RUN: %fwc %s -o %t.fwb
// RUN: %fw-run %t.fwb --function=gather_rows --input=4x3xf32=0,1,2,3,4,5,6,7,8,9,10,11 --input=3x1xi64=2,0,3 | FileCheck %s --check-prefix=ROWS
// ROWS: 3x1x3xf32={{\[\[}}6 7 8{{\]\]}}{{\[\[}}0 1 2{{\]\]}}{{\[\[}}9 10 11{{\]\]}}
// RUN: not %fw-run %t.fwb --function=gather_rows --input=4x3xf32=0 --input=3x1xi64=2,4,0 2>&1 | FileCheck %s --check-prefix=ROWSBAD
// RUN: not %fw-run %t.fwb --function=gather_rows --input=4x3xf32=0 --input=3x1xi64=2,-1,0 2>&1 | FileCheck %s --check-prefix=ROWSBAD
// ROWSBAD: check failed: 'tensor.gather': the index into dimension 0 is out of range (
// ROWSBAD-SAME: gather_scatter.mlir:{{[0-9]+}})
// RUN: %fw-run %t.fwb --function=gather_points --input=4x5x2xf32=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39 --input=3x2xi64=0,0,1,2,3,4 | FileCheck %s --check-prefix=POINTS
// POINTS: 3x2xf32=[0 1][14 15][38 39]
// RUN: not %fw-run %t.fwb --function=gather_points --input=4x5x2xf32=0 --input=3x2xi64=0,5,1,2,3,4 2>&1 | FileCheck %s --check-prefix=POINTSBAD
// POINTSBAD: check failed: 'tensor.gather': the index into dimension 1 is out of range
// RUN: %fw-run %t.fwb --function=scatter_rows --input=2x1x3xf32=1,2,3,4,5,6 --input=5x3xf32=0 --input=2x1xi32=4,1 | FileCheck %s --check-prefix=SROWS
// SROWS: 5x3xf32=[0 0 0][4 5 6][0 0 0][0 0 0][1 2 3]
// RUN: not %fw-run %t.fwb --function=scatter_rows --input=2x1x3xf32=1 --input=5x3xf32=0 --input=2x1xi32=5,1 2>&1 | FileCheck %s --check-prefix=SROWSBAD
// SROWSBAD: check failed: 'tensor.scatter': the slice reaches outside dimension 0 of the destination
// RUN: not %fw-run %t.fwb --function=scatter_rows --input=3x1x3xf32=1 --input=5x3xf32=0 --input=2x1xi32=3,1 2>&1 | FileCheck %s --check-prefix=SROWSSIZE
// SROWSSIZE: failed: 'tensor.scatter': dimension 0 of the source differs from dimension 0 of the indices
// RUN: %fw-run %t.fwb --function=scatter_points --input=2xf32=7,8 --input=3x4xf32=0 --input=2x2xi64=2,3,0,1 | FileCheck %s --check-prefix=SPOINTS
// SPOINTS: 3x4xf32=[0 8 0 0][0 0 0 0][0 0 0 7]
// RUN: not %fw-run %t.fwb --function=scatter_points --input=2xf32=7,8 --input=3x4xf32=0 --input=2x2xi64=2,4,0,1 2>&1 | FileCheck %s --check-prefix=SPOINTSBAD
// RUN: not %fw-run %t.fwb --function=scatter_points --input=2xf32=7,8 --input=3x4xf32=0 --input=2x2xi64=-1,0,0,1 2>&1 | FileCheck %s --check-prefix=SPOINTSBAD
// SPOINTSBAD: check failed: 'tensor.scatter': the slice reaches outside dimension {{[01]}} of the destination
// Inside a task's loop: each iteration gathers the rows its step names and
// sums them.
// RUN: %fw-run %t.fwb --function=gathered_sums --input=4x3xf32=0,1,2,3,4,5,6,7,8,9,10,11 --input=2x2xi64=0,1,3,3 | FileCheck %s --check-prefix=SUMS
// SUMS: 2x3xf32=[3 5 7][18 20 22]
// RUN: not %fw-run %t.fwb --function=gathered_sums --input=4x3xf32=0 --input=2x2xi64=0,1,3,4 2>&1 | FileCheck %s --check-prefix=SUMSBAD
// SUMSBAD: check failed: 'tensor.gather': the index into dimension 0 is out of range
// No indices (a static empty batch): an empty result.
// RUN: %fw-run %t.fwb --function=gather_none --input=4x3xf32=1 --input=0x1xi64=0 | FileCheck %s --check-prefix=NONE
// NONE: 0x4x1xf32=
// One update: an insert, checked as the scatter.
// RUN: %fw-run %t.fwb --function=scatter_one --input=4xf32=0 --input=1xf32=5 --input=1x1xi32=2 | FileCheck %s --check-prefix=ONE
// ONE: 4xf32=0 0 5 0
// RUN: not %fw-run %t.fwb --function=scatter_one --input=4xf32=0 --input=1xf32=5 --input=1x1xi32=4 2>&1 | FileCheck %s --check-prefix=ONEBAD
// ONEBAD: check failed: 'tensor.scatter': the slice reaches outside dimension 0 of the destination
// Index casts reshaped or sliced before the gather: the chain is replayed on the
// integers (signed, or unsigned for index_castui).
// RUN: %fw-run %t.fwb --function=gather_expanded --input=4xi32=7,0,3,1 --input=8xf32=0,10,20,30,40,50,60,70 | FileCheck %s --check-prefix=EXPANDED
// EXPANDED: 4xf32=70 0 30 10
// RUN: not %fw-run %t.fwb --function=gather_expanded --input=4xi32=7,0,8,1 --input=8xf32=0 2>&1 | FileCheck %s --check-prefix=ROWSBAD
// RUN: %fw-run %t.fwb --function=gather_sliced --input=4x1xi64=7,2,3,5 --input=8xf32=0,10,20,30,40,50,60,70 | FileCheck %s --check-prefix=SLICED
// SLICED: 2xf32=20 50

func.func @gather_rows(%a: tensor<?x3xf32>, %i: tensor<?x1xi64>) -> tensor<?x1x3xf32> {
  %r = tensor.gather %a[%i] gather_dims([0]) : (tensor<?x3xf32>, tensor<?x1xi64>) -> tensor<?x1x3xf32>
  return %r : tensor<?x1x3xf32>
}

func.func @gather_points(%a: tensor<4x5x2xf32>, %i64: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %i = arith.index_cast %i64 : tensor<3x2xi64> to tensor<3x2xindex>
  %r = tensor.gather %a[%i] gather_dims([0, 1]) : (tensor<4x5x2xf32>, tensor<3x2xindex>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

func.func @scatter_rows(%src: tensor<?x1x3xf32>, %d: tensor<5x3xf32>, %i: tensor<?x1xi32>) -> tensor<5x3xf32> {
  %r = tensor.scatter %src into %d[%i] scatter_dims([0]) unique : (tensor<?x1x3xf32>, tensor<5x3xf32>, tensor<?x1xi32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

func.func @scatter_points(%src: tensor<2xf32>, %d: tensor<3x4xf32>, %i64: tensor<2x2xi64>) -> tensor<3x4xf32> {
  %i = arith.index_cast %i64 : tensor<2x2xi64> to tensor<2x2xindex>
  %r = tensor.scatter %src into %d[%i] scatter_dims([0, 1]) unique : (tensor<2xf32>, tensor<3x4xf32>, tensor<2x2xindex>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

func.func @gathered_sums(%table: tensor<4x3xf32>, %steps: tensor<2x2xi64>) -> tensor<2x3xf32> {
  %r = fw.task(%table, %steps) : (tensor<4x3xf32>, tensor<2x2xi64>) -> tensor<2x3xf32> {
  ^bb0(%a: tensor<4x3xf32>, %ids: tensor<2x2xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<2x3xf32>
    %init = linalg.fill ins(%z : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
    %e3 = tensor.empty() : tensor<3xf32>
    %z3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
    %l = scf.for %s = %c0 to %c2 step %c1 iter_args(%acc = %init) -> tensor<2x3xf32> {
      %pair = tensor.extract_slice %ids[%s, 0] [1, 2] [1, 1] : tensor<2x2xi64> to tensor<2xi64>
      %row = tensor.expand_shape %pair [[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
      %g = tensor.gather %a[%row] gather_dims([0]) : (tensor<4x3xf32>, tensor<2x1xi64>) -> tensor<2x3xf32>
      %sum = linalg.reduce ins(%g : tensor<2x3xf32>) outs(%z3 : tensor<3xf32>) dimensions = [0]
        (%in: f32, %out: f32) {
          %q = arith.addf %in, %out : f32
          linalg.yield %q : f32
        }
      %placed = tensor.insert_slice %sum into %acc[%s, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<2x3xf32>
      scf.yield %placed : tensor<2x3xf32>
    }
    fw.yield %l : tensor<2x3xf32>
  }
  return %r : tensor<2x3xf32>
}

func.func @gather_none(%s: tensor<?x3xf32>, %i: tensor<0x1xi64>) -> tensor<0x?x1xf32> {
  %r = tensor.gather %s[%i] gather_dims([1]) : (tensor<?x3xf32>, tensor<0x1xi64>) -> tensor<0x?x1xf32>
  return %r : tensor<0x?x1xf32>
}

func.func @scatter_one(%d: tensor<4xf32>, %v: tensor<1xf32>, %i: tensor<1x1xi32>) -> tensor<4xf32> {
  %r = tensor.scatter %v into %d[%i] scatter_dims([0]) unique : (tensor<1xf32>, tensor<4xf32>, tensor<1x1xi32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @gather_expanded(%a: tensor<4xi32>, %s: tensor<8xf32>) -> tensor<4xf32> {
  %idx = arith.index_cast %a : tensor<4xi32> to tensor<4xindex>
  %i2 = tensor.expand_shape %idx [[0, 1]] output_shape [4, 1] : tensor<4xindex> into tensor<4x1xindex>
  %h = tensor.gather %s[%i2] gather_dims([0]) unique : (tensor<8xf32>, tensor<4x1xindex>) -> tensor<4xf32>
  return %h : tensor<4xf32>
}

func.func @gather_sliced(%a: tensor<4x1xi64>, %s: tensor<8xf32>) -> tensor<2xf32> {
  %idx = arith.index_castui %a : tensor<4x1xi64> to tensor<4x1xindex>
  %i2 = tensor.extract_slice %idx[1, 0] [2, 1] [2, 1] : tensor<4x1xindex> to tensor<2x1xindex>
  %h = tensor.gather %s[%i2] gather_dims([0]) unique : (tensor<8xf32>, tensor<2x1xindex>) -> tensor<2xf32>
  return %h : tensor<2xf32>
}
