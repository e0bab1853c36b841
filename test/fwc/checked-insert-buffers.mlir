// RUN: %fwc %s --compile-to=buffers | FileCheck %s

// Rows scattered to positions read from the data: the row is read into a
// buffer of its own and copied to its position only once the position has
// passed its check. Empty-tensor elimination would have built the row in
// place at the unchecked position first (a read there before the check).
// CHECK-LABEL: func.func @scatter_dispatch_0
// CHECK-SAME: (%[[POS:[a-z0-9]+]]: memref<?xi64>, %[[ROWS:[a-z0-9]+]]: memref<?x16xf32>, %{{.*}}: memref<?x16xf32>, %{{.*}}: memref<?x16xf32>
// CHECK: %[[OUT:.*]] = memref.alloc
// CHECK: scf.for
// CHECK-NOT: memref.subview %[[OUT]]
// CHECK: memref.subview %[[ROWS]]
// CHECK-NOT: memref.subview %[[OUT]]
// CHECK: memref.atomic_rmw
// CHECK-NEXT: }
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.subview %[[OUT]]
// CHECK-NEXT: linalg.copy
func.func @scatter(%dst: tensor<?x16xf32>, %rows: tensor<?x16xf32>, %pos: tensor<?xi64>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %pos, %c0 : tensor<?xi64>
  %r = scf.forall (%i) in (%m) shared_outs(%o = %dst) -> tensor<?x16xf32> {
    %p64 = tensor.extract %pos[%i] : tensor<?xi64>
    %p = arith.index_cast %p64 : i64 to index
    %row = tensor.extract_slice %rows[%i, 0] [1, 16] [1, 1] : tensor<?x16xf32> to tensor<1x16xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %row into %o[%p, 0] [1, 16] [1, 1] : tensor<1x16xf32> into tensor<?x16xf32>
    }
  }
  return %r : tensor<?x16xf32>
}
