// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-cpu-workgroup-args))' | FileCheck %s

/// The workgroup id and count become two trailing index arguments and the
/// kernel is marked.
// CHECK-LABEL: func.func @k(
// CHECK-SAME: %arg0: memref<?xf32>, %[[ID:.*]]: index, %[[COUNT:.*]]: index)
// CHECK-SAME: attributes {fw.workgroups}
// CHECK-NOT: fw.workgroup_
// CHECK: arith.muli %[[ID]], %[[COUNT]]
func.func @k(%a: memref<?xf32>) {
  %id = fw.workgroup_id : index
  %count = fw.workgroup_count : index
  %p = arith.muli %id, %count : index
  %z = arith.constant 0.0 : f32
  memref.store %z, %a[%p] : memref<?xf32>
  return
}

// -----

/// negative_: a kernel without them keeps its signature.
// CHECK-LABEL: func.func @plain(%arg0: memref<?xf32>) {
func.func @plain(%a: memref<?xf32>) {
  return
}
