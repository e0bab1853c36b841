// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-cpu-loop-order,fw-cpu-tile{l2-bytes=262144 inner-bytes=1024}))' | FileCheck %s

/// A matmul in (i, k, j) order gets its reduction and inner loops tiled:
/// 256 columns (1 KiB of f32) by 128 reduction steps (half of L2).
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C128]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C256]]
// CHECK: memref.subview
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
func.func @matmul(%a: memref<512x512xf32>, %b: memref<512x512xf32>, %c: memref<512x512xf32>) {
  linalg.matmul ins(%a, %b : memref<512x512xf32>, memref<512x512xf32>) outs(%c : memref<512x512xf32>)
  return
}

// -----

/// negative_: small contractions and elementwise ops are not tiled.
// CHECK-LABEL: func.func @negative_small
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK: linalg.add
func.func @negative_small(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>) {
  linalg.matmul ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  linalg.add ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  return
}
