// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-prepare-input))' | FileCheck %s
// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-prepare-input,canonicalize))' | FileCheck %s --check-prefix=FOLDED

/// A cast that makes a size static is checked before the canonicalizer can
/// fold a tensor.dim of it to that size (and erase the cast): on the host at
/// the top level, where the cast is marked so fw-form-tasks does not check it
/// again.
// CHECK-LABEL: func.func @dim_of_cast(
// CHECK-SAME: %[[A:.*]]: tensor<?xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?xf32>
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : index
// CHECK: fw.assert %[[OK]], "'tensor.cast': dimension 0 of the operand must be 4 ({{.*}}prepare-input-checks.mlir:[[@LINE+7]])"
// CHECK: tensor.cast %[[A]] {fw.host_checked} : tensor<?xf32> to tensor<4xf32>
// FOLDED-LABEL: func.func @dim_of_cast(
// FOLDED: fw.assert
// FOLDED-NOT: tensor.cast %
// FOLDED: return %c4
func.func @dim_of_cast(%a: tensor<?xf32>) -> index {
  %c = tensor.cast %a : tensor<?xf32> to tensor<4xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %c, %c0 : tensor<4xf32>
  return %d : index
}

// -----

/// negative_: a cast that forgets static sizes needs no check.
// CHECK-LABEL: func.func @forget(
// CHECK-NOT: fw.assert
// CHECK: tensor.cast %{{.*}} : tensor<4xf32> to tensor<?xf32>
func.func @forget(%a: tensor<4xf32>) -> tensor<?xf32> {
  %c = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  return %c : tensor<?xf32>
}

// -----

/// A rank-1 reshape to its own type (which folds to its source) has its
/// shape read and compared with the source's size, even at the top level
/// (fw-form-tasks gives a check that reads data a task of its own; the mark
/// says the host has nothing left to check).
// CHECK-LABEL: func.func @same_type(
// CHECK-SAME: %[[A:.*]]: tensor<?xf32>, %[[S:.*]]: tensor<1xi64>
// CHECK: %[[E:.*]] = tensor.extract %[[S]][%{{.*}}] {{.*}}: tensor<1xi64>
// CHECK: %[[N:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK: fw.assert %{{.*}}, "'tensor.reshape': the shape's sizes are negative or do not multiply to the source's number of elements
// CHECK: tensor.reshape %[[A]](%[[S]]) {fw.host_checked}
// FOLDED-LABEL: func.func @same_type(
// FOLDED: fw.assert
// FOLDED-NOT: tensor.reshape %
// FOLDED: return %arg0
func.func @same_type(%a: tensor<?xf32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  %r = tensor.reshape %a(%s) : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

/// Every reshape is checked: one another reshape reads (which the
/// canonicalizer skips), a static size of its result against the shape too,
/// and the outer one (a rank-1 reshape to its own type once the inner one is
/// skipped).
// CHECK-LABEL: func.func @twice(
// CHECK-COUNT-2: tensor.extract
// CHECK: fw.assert %{{.*}}, "'tensor.reshape': the shape's sizes are negative or do not multiply to the source's number of elements
// CHECK: fw.assert %{{.*}}, "'tensor.reshape': dimension 1 of the shape differs from the result's (3)
// CHECK: %[[INNER:.*]] = tensor.reshape %{{.*}} {fw.host_checked}
// CHECK: tensor.extract
// CHECK: fw.assert %{{.*}}, "'tensor.reshape': the shape's sizes are negative or do not multiply to the source's number of elements
// CHECK: tensor.reshape %[[INNER]](%{{.*}}) {fw.host_checked} :
func.func @twice(%a: tensor<?xf32>, %s: tensor<2xi64>, %t: tensor<1xi64>)
    -> tensor<?xf32> {
  %r = tensor.reshape %a(%s) : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  %q = tensor.reshape %r(%t) : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %q : tensor<?xf32>
}

// -----

/// An insert of a cast that forgets a static size: the slice's size there
/// must be that size (the canonicalizer replaces it by the cast's).
// CHECK-LABEL: func.func @insert_cast(
// CHECK-SAME: %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<?xf32>, %[[N:.*]]: index
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[N]], %[[FOUR]] : index
// CHECK: fw.assert %[[OK]], "'tensor.insert_slice': dimension 0 of the inserted tensor differs from the slice size
// CHECK: tensor.insert_slice
// FOLDED-LABEL: func.func @insert_cast(
// FOLDED: fw.assert
// FOLDED: tensor.insert_slice %arg0 into %arg1[0] [4] [1] : tensor<4xf32> into tensor<?xf32>
func.func @insert_cast(%a: tensor<4xf32>, %d: tensor<?xf32>, %n: index)
    -> tensor<?xf32> {
  %c = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  %r = tensor.insert_slice %c into %d[0][%n][1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

/// Inside a loop the checks stay in the loop's body (the kernel's), and the
/// ops are not marked: fw-task-checks checks and guards them if they stay. A
/// parallel insert's check goes before the loop's terminator.
// CHECK-LABEL: func.func @nested(
// CHECK: scf.forall
// CHECK: fw.assert %{{.*}}, "'tensor.cast': dimension 0 of the operand must be 2
// CHECK: %[[C:.*]] = tensor.cast %{{.*}} : tensor<?xf32> to tensor<2xf32>
// CHECK: %[[F:.*]] = tensor.cast %[[C]] : tensor<2xf32> to tensor<?xf32>
// CHECK: fw.assert %{{.*}}, "'tensor.parallel_insert_slice': dimension 0 of the inserted tensor differs from the slice size
// CHECK-NEXT: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[F]]
func.func @nested(%a: tensor<?xf32>, %d: tensor<?xf32>, %n: index)
    -> tensor<?xf32> {
  %r = scf.forall (%i) in (%n) shared_outs(%o = %d) -> tensor<?xf32> {
    %c = tensor.cast %a : tensor<?xf32> to tensor<2xf32>
    %f = tensor.cast %c : tensor<2xf32> to tensor<?xf32>
    %k = arith.muli %i, %n : index
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %f into %o[%k][%n][1]
          : tensor<?xf32> into tensor<?xf32>
    }
  }
  return %r : tensor<?xf32>
}

// -----

/// Casts through an unranked type: the sizes the last makes static are the
/// ranked origin's (the canonicalizer joins the casts); another rank never
/// holds.
// CHECK-LABEL: func.func @unranked(
// CHECK-SAME: %[[A:.*]]: tensor<?xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?xf32>
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : index
// CHECK: fw.assert %[[OK]], "'tensor.cast': dimension 0 of the operand must be 4
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: fw.assert %[[FALSE]], "'tensor.cast': the operand has rank 1, not 2
func.func @unranked(%a: tensor<?xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %u = tensor.cast %a : tensor<?xf32> to tensor<*xf32>
  %c = tensor.cast %u : tensor<*xf32> to tensor<4xf32>
  %m = tensor.cast %u : tensor<*xf32> to tensor<2x2xf32>
  return %c, %m : tensor<4xf32>, tensor<2x2xf32>
}

// -----

/// An insert of a chain of casts: a size any of them knows.
// CHECK-LABEL: func.func @insert_chain(
// CHECK-SAME: %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<?xf32>, %[[N:.*]]: index
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[N]], %{{.*}} : index
// CHECK: fw.assert %[[OK]], "'tensor.insert_slice': dimension 0 of the inserted tensor differs from the slice size
func.func @insert_chain(%a: tensor<4xf32>, %d: tensor<?xf32>, %n: index)
    -> tensor<?xf32> {
  %c = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  %c2 = tensor.cast %c : tensor<?xf32> to tensor<?xf32>
  %r = tensor.insert_slice %c2 into %d[0][%n][1] : tensor<?xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

/// A check reads sizes from the ops' operands, not from an intermediate
/// tensor (no use elementwise fusion would see, no size a fold changes): the
/// cast of a fill compares the size the fill's init was made with.
// CHECK-LABEL: func.func @cast_of_fill(
// CHECK-SAME: %[[A:.*]]: tensor<?xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[A]]
// CHECK: %[[E:.*]] = tensor.empty(%[[N]])
// CHECK: %[[F:.*]] = linalg.fill
// CHECK-NOT: tensor.dim %[[F]]
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[N]], %{{.*}} : index
// CHECK: fw.assert %[[OK]], "'tensor.cast': dimension 0 of the operand must be 4
func.func @cast_of_fill(%a: tensor<?xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %c = tensor.cast %f : tensor<?xf32> to tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

/// An element index read from the data is checked before folding where the
/// access could fold (an element of a splat), not where the kernel that
/// reads it checks it anyway.
// CHECK-LABEL: func.func @element_of(
// CHECK: fw.assert %{{.*}}, "'tensor.extract': the index into dimension 0 is out of range
// CHECK: tensor.extract %{{.*}}[%{{.*}}] {fw.host_checked} : tensor<4xf32>
// CHECK-NOT: fw.assert
// CHECK: tensor.extract %{{.*}}[%{{.*}}] {fw.host_checked} : tensor<?xf32>
func.func @element_of(%a: tensor<?xf32>, %it: tensor<i64>) -> (f32, f32) {
  %ones = arith.constant dense<1.0> : tensor<4xf32>
  %ii = tensor.extract %it[] : tensor<i64>
  %i = arith.index_cast %ii : i64 to index
  %v = tensor.extract %ones[%i] : tensor<4xf32>
  %w = tensor.extract %a[%i] : tensor<?xf32>
  return %v, %w : f32, f32
}
