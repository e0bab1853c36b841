// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(fw-cpu-distribute))' | FileCheck %s

/// One elementwise op: its rows are cut into one part per workgroup, and
/// the op runs on the subviews of its part.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[ID:.*]] = fw.workgroup_id : index
// CHECK-DAG: %[[COUNT:.*]] = fw.workgroup_count : index
// CHECK: %[[LO:.*]] = arith.minui
// CHECK: %[[HI:.*]] = arith.minui
// CHECK: %[[N:.*]] = arith.subi %[[HI]], %[[LO]]
// CHECK: %[[IN:.*]] = memref.subview %arg0[%[[LO]], 0] [%[[N]], 512] [1, 1]
// CHECK: %[[OUT:.*]] = memref.subview %arg1[%[[LO]], 0] [%[[N]], 512] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[IN]] : {{.*}}) outs(%[[OUT]] : {{.*}})
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%a: memref<512x512xf32>, %b: memref<512x512xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<512x512xf32>) outs(%b : memref<512x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// -----

/// A fill and a row reduction writing the same buffer: both are cut along
/// its rows, identically.
// CHECK-LABEL: func.func @fill_and_reduce
// CHECK: fw.workgroup_id
// CHECK: %[[S1:.*]] = memref.subview %arg1[%[[LO:.*]]] [%[[N:.*]]] [1]
// CHECK: linalg.fill {{.*}} outs(%[[S1]]
// CHECK: %[[S2:.*]] = memref.subview %arg0[%[[LO2:.*]], 0] [%[[N2:.*]], 1024] [1, 1]
// CHECK: %[[S3:.*]] = memref.subview %arg1[%[[LO2]]] [%[[N2]]] [1]
// CHECK: linalg.reduce ins(%[[S2]] {{.*}} outs(%[[S3]]
func.func @fill_and_reduce(%a: memref<1024x1024xf32>, %r: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%r : memref<1024xf32>)
  linalg.reduce ins(%a : memref<1024x1024xf32>) outs(%r : memref<1024xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

/// A one-dimensional op is cut at multiples of 64 elements.
// CHECK-LABEL: func.func @vector_granule
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: arith.ceildivui %{{.*}}, %[[C64]]
// CHECK: linalg.generic
func.func @vector_granule(%a: memref<?xf32>, %b: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<?xf32>) outs(%b : memref<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  return
}

// -----

/// negative_: a small op, a buffer written by one op and read whole (here
/// transposed) by the next, an effect that is not a linalg op, and a kernel
/// that is already divided are left alone.
// CHECK-LABEL: func.func @negative_small
// CHECK-NOT: fw.workgroup_id
func.func @negative_small(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  linalg.copy ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>)
  return
}

// CHECK-LABEL: func.func @negative_transposed_reuse
// CHECK-NOT: fw.workgroup_id
// CHECK-NOT: memref.subview
func.func @negative_transposed_reuse(%a: memref<512x512xf32>, %b: memref<512x512xf32>) {
  %t = memref.alloc() : memref<512x512xf32>
  linalg.copy ins(%a : memref<512x512xf32>) outs(%t : memref<512x512xf32>)
  linalg.transpose ins(%t : memref<512x512xf32>) outs(%b : memref<512x512xf32>) permutation = [1, 0]
  memref.dealloc %t : memref<512x512xf32>
  return
}

// CHECK-LABEL: func.func @negative_other_effects
// CHECK-NOT: fw.workgroup_id
func.func @negative_other_effects(%a: memref<512x512xf32>, %b: memref<512x512xf32>) {
  memref.copy %a, %b : memref<512x512xf32> to memref<512x512xf32>
  linalg.copy ins(%a : memref<512x512xf32>) outs(%b : memref<512x512xf32>)
  return
}

// CHECK-LABEL: func.func @negative_divided
// CHECK: fw.workgroup_id
// CHECK-NOT: memref.subview
func.func @negative_divided(%a: memref<512x512xf32>, %b: memref<512x512xf32>) {
  %id = fw.workgroup_id : index
  linalg.copy ins(%a : memref<512x512xf32>) outs(%b : memref<512x512xf32>)
  return
}

// -----

/// A declaration has nothing to divide (and no body to look into).
// CHECK-LABEL: func.func private @declared(i64)
func.func private @declared(i64)
