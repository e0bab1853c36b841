// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-task-checks))' | FileCheck %s
// Running it again adds nothing: what it checked is marked.
// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-task-checks,fw-task-checks))' | FileCheck %s

/// An embedding lookup: the row index comes from the data, so it is checked
/// (one unsigned comparison catches negative indices too) and the read is
/// guarded; the column index is a loop index below 4 and needs no check.
// CHECK-LABEL: func.func @lookup
// CHECK: fw.task
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = arith.index_cast
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xf32>
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[I]], %[[D]] : index
// CHECK: fw.assert %[[OK]], "'tensor.extract': the index into dimension 0 is out of range (
// CHECK-SAME: task-checks.mlir:
// CHECK-NOT: fw.assert
// CHECK: %[[V:.*]] = scf.if %[[OK]] -> (f32) {
// CHECK-NEXT: tensor.extract %{{.*}}[%[[I]], %[[J]]] {fw.checked}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %{{.*}} : f32
// CHECK: linalg.yield %[[V]] : f32
#in = affine_map<(d0, d1) -> (d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @lookup(%table: tensor<?x4xf32>, %ids: tensor<?xi64>, %n: index) -> tensor<?x4xf32> {
  %r = fw.task(%table, %ids) : (tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x4xf32> dims(%n) {
  ^bb0(%t: tensor<?x4xf32>, %x: tensor<?xi64>):
    %c0 = arith.constant 0 : index
    %m = tensor.dim %x, %c0 : tensor<?xi64>
    %e = tensor.empty(%m) : tensor<?x4xf32>
    %g = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<?xi64>) outs(%e : tensor<?x4xf32>) {
    ^bb0(%id: i64, %o: f32):
      %i = arith.index_cast %id : i64 to index
      %j = linalg.index 1 : index
      %v = tensor.extract %t[%i, %j] : tensor<?x4xf32>
      linalg.yield %v : f32
    } -> tensor<?x4xf32>
    fw.yield %g : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}

// -----

/// Indices the analysis bounds need nothing: constants inside a static shape,
/// a loop index reversed over the same size.
// CHECK-LABEL: func.func @proven
// CHECK-NOT: fw.assert
// CHECK-NOT: scf.if
// CHECK: return
#id = affine_map<(d0) -> (d0)>
func.func @proven(%a: tensor<?xf32>, %s: tensor<3xf32>, %n: index) -> tensor<?xf32> {
  %r = fw.task(%a, %s) : (tensor<?xf32>, tensor<3xf32>) -> tensor<?xf32> dims(%n) {
  ^bb0(%x: tensor<?xf32>, %y: tensor<3xf32>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %m = tensor.dim %x, %c0 : tensor<?xf32>
    %e = tensor.empty(%m) : tensor<?xf32>
    %scale = tensor.extract %y[%c2] : tensor<3xf32>
    %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
        outs(%e : tensor<?xf32>) {
    ^bb0(%o: f32):
      %i = linalg.index 0 : index
      %last = arith.subi %m, %c1 : index
      %k = arith.subi %last, %i : index
      %v = tensor.extract %x[%k] : tensor<?xf32>
      %w = arith.mulf %v, %scale : f32
      linalg.yield %w : f32
    } -> tensor<?xf32>
    fw.yield %g : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

/// An insert at an index read from the data keeps its destination when the
/// index is out of range.
// CHECK-LABEL: func.func @scatter_one
// CHECK: %[[DEST:.*]] = linalg.fill
// CHECK: %[[I:.*]] = arith.index_cast
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[I]], %[[EIGHT]] : index
// CHECK: fw.assert %[[OK]], "'tensor.insert': the index into dimension 0 is out of range
// CHECK: scf.if %[[OK]] -> (tensor<8xf32>) {
// CHECK-NEXT: tensor.insert %{{.*}} into %[[DEST]][%[[I]]] {fw.checked}
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[DEST]] : tensor<8xf32>
func.func @scatter_one(%where: tensor<1xi32>, %what: tensor<1xf32>) -> tensor<8xf32> {
  %r = fw.task(%where, %what) : (tensor<1xi32>, tensor<1xf32>) -> tensor<8xf32> {
  ^bb0(%w: tensor<1xi32>, %v: tensor<1xf32>):
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %k = tensor.extract %w[%c0] : tensor<1xi32>
    %i = arith.index_cast %k : i32 to index
    %x = tensor.extract %v[%c0] : tensor<1xf32>
    %s = tensor.insert %x into %f[%i] : tensor<8xf32>
    fw.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

/// A loop step read from the data: not positive on a loop that runs fails the
/// task, as does a step that makes the induction variable overflow before it
/// reaches the bound (its last value plus the step); such a loop runs no
/// iteration instead of never ending.
// CHECK-LABEL: func.func @data_step
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[STEP:.*]] = arith.index_cast
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[NONE:.*]] = arith.cmpi sge, %[[C0]], %[[C16]] : index
// CHECK: %[[POS:.*]] = arith.cmpi sgt, %[[STEP]], %{{.*}} : index
// CHECK: %[[POSOK:.*]] = arith.ori %[[POS]], %[[NONE]] : i1
// CHECK: fw.assert %[[POSOK]], "'scf.for': the loop's step is not positive
// CHECK: %[[SAFE:.*]] = arith.select %[[POS]], %[[STEP]], %[[ONE]] : index
// CHECK: %[[SPAN:.*]] = arith.subi %[[C16]], %[[C0]] : index
// CHECK: %[[DIST:.*]] = arith.subi %[[SPAN]], %[[ONE]] : index
// CHECK: %[[TRIPS:.*]] = arith.divui %[[DIST]], %[[SAFE]] : index
// CHECK: %[[OFF:.*]] = arith.muli %[[TRIPS]], %[[SAFE]] : index
// CHECK: %[[LAST:.*]] = arith.addi %[[C0]], %[[OFF]] : index
// CHECK: %[[MAX:.*]] = arith.constant 9223372036854775807 : index
// CHECK: %[[LIMIT:.*]] = arith.subi %[[MAX]], %[[SAFE]] : index
// CHECK: %[[FITS:.*]] = arith.cmpi sle, %[[LAST]], %[[LIMIT]] : index
// CHECK: %[[FITSOK:.*]] = arith.ori %[[FITS]], %[[NONE]] : i1
// CHECK: fw.assert %[[FITSOK]], "'scf.for': the loop's induction variable would overflow before it reaches its upper bound
// CHECK: %[[OK:.*]] = arith.andi %[[POS]], %[[FITS]] : i1
// CHECK: %[[UB:.*]] = arith.select %[[OK]], %[[C16]], %[[C0]] : index
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[UB]] step %[[SAFE]]
// CHECK: {fw.checked}
func.func @data_step(%s: tensor<1xi64>, %a: tensor<16xf32>) -> tensor<16xf32> {
  %r = fw.task(%s, %a) : (tensor<1xi64>, tensor<16xf32>) -> tensor<16xf32> {
  ^bb0(%x: tensor<1xi64>, %y: tensor<16xf32>):
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %k = tensor.extract %x[%c0] : tensor<1xi64>
    %step = arith.index_cast %k : i64 to index
    %l = scf.for %i = %c0 to %c16 step %step iter_args(%t = %y) -> tensor<16xf32> {
      %u = tensor.insert %one into %t[%i] : tensor<16xf32>
      scf.yield %u : tensor<16xf32>
    }
    fw.yield %l : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// -----

/// Constant bounds and a constant step need nothing, nor does a bound from a
/// size with a small constant step (no tensor's size comes near the maximum),
/// nor any bound with a step of 1; a bound read from the data with a step of 2
/// gets the overflow check.
// CHECK-LABEL: func.func @loops
// CHECK-NOT: step is not positive
// CHECK: fw.assert %{{.*}}, "'scf.for': the loop's induction variable would overflow
// CHECK-SAME: task-checks.mlir:[[# @LINE + 24]])
// CHECK-NOT: fw.assert
// CHECK: return
func.func @loops(%a: tensor<?xf32>, %b: tensor<1xi64>, %n: index) -> tensor<?xf32> {
  %r = fw.task(%a, %b) : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32> dims(%n) {
  ^bb0(%x: tensor<?xf32>, %y: tensor<1xi64>):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1.0 : f32
    %m = tensor.dim %x, %c0 : tensor<?xf32>
    %l = scf.for %i = %c0 to %c8 step %c2 iter_args(%t = %x) -> tensor<?xf32> {
      %u = scf.for %j = %c0 to %m step %c2 iter_args(%v = %t) -> tensor<?xf32> {
        %w = tensor.insert %one into %v[%j] : tensor<?xf32>
        scf.yield %w : tensor<?xf32>
      }
      scf.yield %u : tensor<?xf32>
    }
    %k = tensor.extract %y[%c0] : tensor<1xi64>
    %h = arith.index_cast %k : i64 to index
    %c1 = arith.constant 1 : index
    %l1 = scf.for %i = %c0 to %h step %c1 iter_args(%t = %l) -> tensor<?xf32> {
      scf.yield %t : tensor<?xf32>
    }
    %l2 = scf.for %i = %c0 to %h step %c2 iter_args(%t = %l1) -> tensor<?xf32> {
      scf.yield %t : tensor<?xf32>
    }
    fw.yield %l2 : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

/// Slices at an offset read from the data: in each dimension the kernel
/// computes, s elements from offset o by stride t fit a dimension of D when
/// s is 0, or o < D, t >= 1 and s - 1 <= (D - 1 - o) / t. An extract that does
/// not fit reads nothing, an insert leaves its destination as it was. Slices
/// whose bounds come from sizes and constants are the host's (fw-form-tasks),
/// and one the analysis bounds (a loop over the pairs of a size) needs nothing.
// CHECK-LABEL: func.func @slices
// CHECK: %[[O:.*]] = arith.index_cast
// CHECK: %[[TEN:.*]] = arith.constant 10 : index
// CHECK: %[[TGE:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK: %[[ONEELT:.*]] = arith.cmpi ule, %{{.*}}, %{{.*}} : index
// CHECK: %[[TOK:.*]] = arith.ori %[[TGE]], %[[ONEELT]] : i1
// CHECK: %[[T:.*]] = arith.select %[[TGE]], %{{.*}}, %{{.*}} : index
// CHECK: %[[LASTD:.*]] = arith.subi %[[TEN]], %{{.*}} : index
// CHECK: %[[ROOMD:.*]] = arith.subi %[[LASTD]], %[[O]] : index
// CHECK: %[[ROOM:.*]] = arith.divui %[[ROOMD]], %[[T]] : index
// CHECK: %[[OIN:.*]] = arith.cmpi ult, %[[O]], %[[TEN]] : index
// CHECK: %[[A:.*]] = arith.andi %[[OIN]], %[[TOK]] : i1
// CHECK: %[[SM1:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[SIN:.*]] = arith.cmpi ule, %[[SM1]], %[[ROOM]] : index
// CHECK: %[[FITS:.*]] = arith.andi %[[A]], %[[SIN]] : i1
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: %[[OK:.*]] = arith.ori %[[EMPTY]], %[[FITS]] : i1
// CHECK: fw.assert %[[OK]], "'tensor.extract_slice': the slice reaches outside dimension 0 of the source
// CHECK: %[[NONE:.*]] = tensor.empty() : tensor<2xf32>
// CHECK: %[[S:.*]] = scf.if %[[OK]] -> (tensor<2xf32>) {
// CHECK-NEXT: tensor.extract_slice %{{.*}}[%[[O]]] [2] [1] {fw.checked}
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[NONE]] : tensor<2xf32>
// CHECK: fw.assert %{{.*}}, "'tensor.insert_slice': the slice reaches outside dimension 0 of the destination
// CHECK: scf.if %{{.*}} -> (tensor<10xf32>) {
// CHECK-NEXT: tensor.insert_slice %[[S]] into %{{.*}}[%[[O]]] [2] [1] {fw.checked}
// CHECK: } else {
// CHECK-NEXT: scf.yield %{{.*}} : tensor<10xf32>
// CHECK-NOT: fw.assert
// CHECK: fw.yield
func.func @slices(%a: tensor<10xf32>, %at: tensor<1xi64>) -> tensor<10xf32> {
  %r = fw.task(%a, %at) : (tensor<10xf32>, tensor<1xi64>) -> tensor<10xf32> {
  ^bb0(%x: tensor<10xf32>, %y: tensor<1xi64>):
    %c0 = arith.constant 0 : index
    %k = tensor.extract %y[%c0] : tensor<1xi64>
    %o = arith.index_cast %k : i64 to index
    %s = tensor.extract_slice %x[%o] [2] [1] : tensor<10xf32> to tensor<2xf32>
    %u = tensor.insert_slice %s into %x[%o] [2] [1] : tensor<2xf32> into tensor<10xf32>
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c9 = arith.constant 9 : index
    %l = scf.for %i = %c0 to %c9 step %c2 iter_args(%t = %u) -> tensor<10xf32> {
      %p = tensor.extract_slice %x[%i] [2] [1] : tensor<10xf32> to tensor<2xf32>
      %q = tensor.insert_slice %p into %t[%i] [2] [1] : tensor<2xf32> into tensor<10xf32>
      scf.yield %q : tensor<10xf32>
    }
    fw.yield %l : tensor<10xf32>
  }
  return %r : tensor<10xf32>
}

// -----

/// Only tasks: the host checks its own indices (fw-form-tasks).
// CHECK-LABEL: func.func @host
// CHECK-NOT: fw.assert
func.func @host(%a: tensor<4xf32>, %i: index) -> f32 {
  %v = tensor.extract %a[%i] : tensor<4xf32>
  return %v : f32
}

// -----

/// A parallel insert at a position read from the data cannot sit in an
/// scf.if: its forall becomes a loop carrying the shared output, the insert a
/// tensor.insert_slice, checked and guarded as any, named as written.
// CHECK-LABEL: func.func @forall_scatter
// CHECK-NOT: scf.forall
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[O:.*]] = %{{.*}}) -> (tensor<8x4xf32>)
// CHECK: %[[ROW:.*]] = tensor.extract_slice %{{.*}}[%[[I]], 0] [1, 4] [1, 1]
// CHECK: fw.assert %[[OK:.*]], "'tensor.parallel_insert_slice': the slice reaches outside dimension 0 of the destination
// CHECK: %[[NEW:.*]] = scf.if %[[OK]] -> (tensor<8x4xf32>) {
// CHECK-NEXT: tensor.insert_slice %[[ROW]] into %[[O]][%{{.*}}, 0] [1, 4] [1, 1] {fw.checked, fw.written_as = "tensor.parallel_insert_slice"}
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[O]]
// CHECK: scf.yield %[[NEW]] : tensor<8x4xf32>
// CHECK: {fw.written_as = "scf.forall"}
// CHECK: fw.yield %[[R]]
func.func @forall_scatter(%dst: tensor<8x4xf32>, %rows: tensor<2x4xf32>, %pos: tensor<2xi64>) -> tensor<8x4xf32> {
  %r = fw.task(%dst, %rows, %pos) : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<8x4xf32> {
  ^bb0(%d: tensor<8x4xf32>, %x: tensor<2x4xf32>, %p: tensor<2xi64>):
    %f = scf.forall (%i) in (2) shared_outs(%o = %d) -> tensor<8x4xf32> {
      %pi = tensor.extract %p[%i] : tensor<2xi64>
      %at = arith.index_cast %pi : i64 to index
      %row = tensor.extract_slice %x[%i, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<1x4xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %row into %o[%at, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<8x4xf32>
      }
    }
    fw.yield %f : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

/// Tiles of a forall over the tiles of a size need nothing: it stays.
// CHECK-LABEL: func.func @forall_tiles
// CHECK-NOT: fw.assert
// CHECK: scf.forall
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: fw.assert
// CHECK: return
#tile = affine_map<(d0) -> (d0 * 4)>
func.func @forall_tiles(%a: tensor<16xf32>) -> tensor<16xf32> {
  %r = fw.task(%a) : (tensor<16xf32>) -> tensor<16xf32> {
  ^bb0(%x: tensor<16xf32>):
    %e = tensor.empty() : tensor<16xf32>
    %f = scf.forall (%i) in (4) shared_outs(%o = %e) -> tensor<16xf32> {
      %at = affine.apply #tile(%i)
      %t = tensor.extract_slice %x[%at] [4] [1] : tensor<16xf32> to tensor<4xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %t into %o[%at] [4] [1] : tensor<4xf32> into tensor<16xf32>
      }
    }
    fw.yield %f : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}

// -----

/// Two shared outputs, each written by its own insert, and a step read from
/// the data: one loop per dimension, each insert chained on its own output,
/// and the step checked as a loop's.
// CHECK-LABEL: func.func @forall_two_outputs
// CHECK: fw.assert %{{.*}}, "'scf.forall': the loop's step is not positive
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}) -> (tensor<?xf32>, tensor<?xf32>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A2:.*]] = %[[A]], %[[B2:.*]] = %[[B]])
// CHECK: "'tensor.parallel_insert_slice': the slice reaches outside
// CHECK-NEXT: %[[NA:.*]] = scf.if
// CHECK-NEXT: tensor.insert_slice %{{.*}} into %[[A2]]
// CHECK: "'tensor.parallel_insert_slice': the slice reaches outside
// CHECK-NEXT: %[[NB:.*]] = scf.if
// CHECK-NEXT: tensor.insert_slice %{{.*}} into %[[B2]]
// CHECK: scf.yield %[[NA]], %[[NB]]
func.func @forall_two_outputs(%a: tensor<?xf32>, %s: tensor<i64>, %n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %r:2 = fw.task(%a, %s) : (tensor<?xf32>, tensor<i64>) -> (tensor<?xf32>, tensor<?xf32>) dims(%n, %n) {
  ^bb0(%x: tensor<?xf32>, %st: tensor<i64>):
    %c0 = arith.constant 0 : index
    %m = tensor.dim %x, %c0 : tensor<?xf32>
    %sv = tensor.extract %st[] : tensor<i64>
    %step = arith.index_cast %sv : i64 to index
    %e = tensor.empty(%m) : tensor<?xf32>
    %f:2 = scf.forall (%i, %j) = (0, 0) to (%m, 1) step (%step, 1) shared_outs(%o = %x, %p = %e) -> (tensor<?xf32>, tensor<?xf32>) {
      %t = tensor.extract_slice %x[%i] [%step] [1] : tensor<?xf32> to tensor<?xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %t into %o[%i] [%step] [1] : tensor<?xf32> into tensor<?xf32>
        tensor.parallel_insert_slice %t into %p[%i] [%step] [1] : tensor<?xf32> into tensor<?xf32>
      }
    }
    fw.yield %f#0, %f#1 : tensor<?xf32>, tensor<?xf32>
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}

// -----

/// Ops nested in a task's loops get in the kernel the checks the host makes
/// of the task's own ops: operand sizes that must agree; one that fails them
/// yields its init.
// CHECK-LABEL: func.func @nested_shapes
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: %[[SAME:.*]] = arith.cmpi eq
// CHECK: fw.assert %[[SAME]], "'linalg.add': dimension 0 of operand 0 and dimension 0 of operand 1 must be equal
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<?xf32>) {
// CHECK-NEXT: linalg.add {fw.checked} ins(%[[ACC]], %{{.*}} : tensor<?xf32>, tensor<?xf32>) outs(%[[ACC]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[ACC]]
// CHECK: scf.yield %[[R]]
func.func @nested_shapes(%a: tensor<?xf32>, %b: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %r = fw.task(%a, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> dims(%n) {
  ^bb0(%x: tensor<?xf32>, %y: tensor<?xf32>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %l = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> tensor<?xf32> {
      %s = linalg.add ins(%acc, %y : tensor<?xf32>, tensor<?xf32>) outs(%acc : tensor<?xf32>) -> tensor<?xf32>
      scf.yield %s : tensor<?xf32>
    }
    fw.yield %l : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

/// Slices nested in a loop are checked in the kernel even when the host could
/// compute their offsets and sizes (it checks only the task's own ops), and
/// so is an insert into a tensor the kernel sizes; the inserted tensor must
/// have the slice's size there too. A forall without dimensions runs once.
// CHECK-LABEL: func.func @nested_slices
// CHECK: scf.for
// CHECK: "'tensor.extract_slice': the slice reaches outside dimension 0 of the source
// CHECK: "'tensor.insert_slice': the slice reaches outside dimension 0 of the destination
// CHECK: "'tensor.insert_slice': dimension 0 of the inserted tensor differs from the slice size
// CHECK: tensor.insert_slice {{.*}} {fw.checked}
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: "'tensor.parallel_insert_slice': the slice reaches outside dimension 0 of the destination
// CHECK: {fw.written_as = "scf.forall"}
// CHECK: fw.yield
func.func @nested_slices(%a: tensor<?xf32>, %k: tensor<2xi64>, %n: index) -> tensor<?xf32> {
  %r = fw.task(%a, %k) : (tensor<?xf32>, tensor<2xi64>) -> tensor<?xf32> dims(%n) {
  ^bb0(%x: tensor<?xf32>, %kk: tensor<2xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %m = tensor.dim %x, %c0 : tensor<?xf32>
    %last = arith.subi %m, %c2 : index
    %l = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> tensor<?xf32> {
      %s = tensor.extract_slice %x[%last] [4] [1] : tensor<?xf32> to tensor<4xf32>
      %k64 = tensor.extract %kk[%c0] : tensor<2xi64>
      %kn = arith.index_cast %k64 : i64 to index
      %e = tensor.empty(%kn) : tensor<?xf32>
      %t = tensor.extract_slice %x[0] [%m] [1] : tensor<?xf32> to tensor<?xf32>
      %u = tensor.insert_slice %t into %e[0] [%kn] [1] : tensor<?xf32> into tensor<?xf32>
      %v = tensor.insert_slice %s into %acc[0] [4] [1] : tensor<4xf32> into tensor<?xf32>
      scf.yield %v : tensor<?xf32>
    }
    %f = scf.forall () in () shared_outs(%o = %l) -> tensor<?xf32> {
      %p64 = tensor.extract %kk[%c1] : tensor<2xi64>
      %at = arith.index_cast %p64 : i64 to index
      %one = tensor.extract_slice %x[0] [1] [1] : tensor<?xf32> to tensor<1xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %one into %o[%at] [1] [1] : tensor<1xf32> into tensor<?xf32>
      }
    }
    fw.yield %f : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

/// A task written in the input was checked by no one: its own ops get the
/// host's checks in the kernel (operand sizes that agree, a padding read from
/// the data not negative). A task fw-form-tasks made (fw.host_checked) has
/// them on the host already.
// CHECK-LABEL: func.func @input_task
// CHECK: fw.assert %{{.*}}, "'linalg.add': dimension 0 of operand 0 and dimension 0 of operand 1 must be equal
// CHECK: scf.if
// CHECK: linalg.add {fw.checked}
// CHECK: fw.assert %{{.*}}, "'tensor.pad': the low padding of dimension 0 is negative
// CHECK: scf.if
// CHECK: tensor.pad
// CHECK-LABEL: func.func @formed_task
// CHECK-NOT: fw.assert
// CHECK: return
func.func @input_task(%a: tensor<?xf32>, %b: tensor<?xf32>, %p: tensor<i64>, %n: index, %m: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %r:2 = fw.task(%a, %b, %p) : (tensor<?xf32>, tensor<?xf32>, tensor<i64>) -> (tensor<?xf32>, tensor<?xf32>) dims(%n, %m) {
  ^bb0(%x: tensor<?xf32>, %y: tensor<?xf32>, %pp: tensor<i64>):
    %s = linalg.add ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%x : tensor<?xf32>) -> tensor<?xf32>
    %z = arith.constant 0.0 : f32
    %l64 = tensor.extract %pp[] : tensor<i64>
    %l = arith.index_cast %l64 : i64 to index
    %padded = tensor.pad %x low[%l] high[0] {
    ^bb0(%j: index):
      tensor.yield %z : f32
    } : tensor<?xf32> to tensor<?xf32>
    fw.yield %s, %padded : tensor<?xf32>, tensor<?xf32>
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}
func.func @formed_task(%a: tensor<?xf32>, %b: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %r = fw.task(%a, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32> dims(%n) attributes {fw.host_checked} {
  ^bb0(%x: tensor<?xf32>, %y: tensor<?xf32>):
    %s = linalg.add ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%x : tensor<?xf32>) -> tensor<?xf32>
    fw.yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

/// A tensor sized from the data: its size must not be negative nor its bytes
/// pass 2^47 (the product checked for overflow); after a failure it is empty.
/// One sized as a tensor the kernel has needs nothing.
// CHECK-LABEL: func.func @sized_by_data
// CHECK: %[[K:.*]] = arith.index_cast
// CHECK: arith.mului_extended
// CHECK: fw.assert %[[OK:.*]], "'tensor.empty': a size is negative or the tensor would take more than 2^47 bytes
// CHECK: %[[SAFE:.*]] = arith.select %[[OK]], %[[K]], %{{.*}} : index
// CHECK: tensor.empty(%[[SAFE]]) {fw.checked}
// CHECK-NOT: fw.assert
// CHECK: fw.yield
func.func @sized_by_data(%p: tensor<i64>, %a: tensor<?xf32>, %n: index, %m: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %r:2 = fw.task(%p, %a) : (tensor<i64>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) dims(%n, %m) attributes {fw.host_checked} {
  ^bb0(%pp: tensor<i64>, %x: tensor<?xf32>):
    %c0 = arith.constant 0 : index
    %k64 = tensor.extract %pp[] : tensor<i64>
    %k = arith.index_cast %k64 : i64 to index
    %e = tensor.empty(%k) : tensor<?xf32>
    %d = tensor.dim %x, %c0 : tensor<?xf32>
    %f = tensor.empty(%d) : tensor<?xf32>
    fw.yield %e, %f : tensor<?xf32>, tensor<?xf32>
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}

// -----

/// A parallel loop with a step the kernel computes becomes for loops (the
/// reduction carried in order), checked as any, their messages naming the
/// loop as written; one with constant bounds and steps stays.
// CHECK-LABEL: func.func @parallel_step(
// CHECK-NOT: scf.parallel
// CHECK: fw.assert %{{.*}}, "'scf.parallel': the loop's step is not positive
// CHECK: fw.assert %{{.*}}, "'scf.parallel': the loop's induction variable would overflow
// CHECK: scf.for {{.*}} iter_args
// CHECK: } {fw.checked, fw.written_as = "scf.parallel"}
// CHECK: scf.parallel
func.func @parallel_step(%st: tensor<1xi64>) -> tensor<i64> {
  %r = fw.task(%st) : (tensor<1xi64>) -> tensor<i64> {
  ^bb0(%o: tensor<1xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %s64 = tensor.extract %o[%c0] : tensor<1xi64>
    %s = arith.index_cast %s64 : i64 to index
    %sum = scf.parallel (%i) = (%c0) to (%c8) step (%s) init (%z) -> i64 {
      scf.reduce(%one : i64) {
      ^bb0(%a: i64, %b: i64):
        %q = arith.addi %a, %b : i64
        scf.reduce.return %q : i64
      }
    }
    %fixed = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%sum) -> i64 {
      scf.reduce(%one : i64) {
      ^bb0(%a: i64, %b: i64):
        %q = arith.addi %a, %b : i64
        scf.reduce.return %q : i64
      }
    }
    %t = tensor.from_elements %fixed : tensor<i64>
    fw.yield %t : tensor<i64>
  }
  return %r : tensor<i64>
}
