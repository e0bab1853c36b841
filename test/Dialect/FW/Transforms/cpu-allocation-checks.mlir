// RUN: %fw-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(fw-cpu-allocation-checks))' | FileCheck %s

/// A dynamically sized allocation is preceded by a test of its byte count
/// (4 x %n, overflow-checked, at most 2^47); each allocation is followed by
/// a test of its pointer; a failure records the number of the check on the
/// error word (the last buffer) and returns: the kernel frees nothing there
/// (%a is held where %b is refused; the runtime frees what a kernel holds when
/// it returns). The mark is used up.
// CHECK-LABEL: func.func @k(
// CHECK-SAME: %[[OUT:.*]]: memref<?xf32>, %[[WORD:.*]]: memref<i32>, %{{.*}}: index, %{{.*}}: index)
// CHECK-SAME: attributes {fw.error_word}
// CHECK: %[[N:.*]] = memref.dim %[[OUT]]
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: arith.mului_extended %{{.*}}, %[[FOUR]] : index
// CHECK: %[[LOW:.*]], %[[HIGH:.*]] = arith.mului_extended %{{.*}}, %[[N]] : index
// CHECK: arith.cmpi eq, %[[HIGH]]
// CHECK: %[[LIMIT:.*]] = arith.constant 140737488355328 : index
// CHECK: %[[SMALL:.*]] = arith.cmpi ule, %[[LOW]], %[[LIMIT]] : index
// CHECK: %[[FITS:.*]] = arith.andi %{{.*}}, %[[SMALL]] : i1
// CHECK: cf.cond_br %[[FITS]] weights([1048576, 1]), ^[[ALLOCATE:.*]], ^[[REFUSED:[a-z0-9]*]]
// CHECK: ^[[ALLOCATE]]:
// CHECK-NEXT: %[[A:.*]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?xf32>
// CHECK: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[NA:.*]] = arith.cmpi eq, %[[PA]], %{{.*}} : index
// CHECK: cf.cond_br %[[NA]] weights([1, 1048576]), ^[[REFUSED]], ^[[GIVEN:[a-z0-9]*]]
// CHECK: ^[[GIVEN]]:
// CHECK: memref.store
// CHECK: cf.cond_br %{{.*}}, ^[[LOOP:.*]], ^[[DONE:[a-z0-9]*]]
// CHECK: ^[[LOOP]]:
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: %[[NB:.*]] = arith.cmpi eq, %[[PB]], %{{.*}} : index
// CHECK: cf.cond_br %[[NB]] weights([1, 1048576]), ^[[REFUSED]], ^[[GIVEN2:[a-z0-9]*]]
// CHECK: ^[[GIVEN2]]:
// CHECK: memref.dealloc %[[B]]
// CHECK: ^[[DONE]]:
// CHECK: memref.dealloc %[[A]]
// CHECK-NEXT: return
// CHECK: ^[[REFUSED]]:
// CHECK-NEXT: %[[THREE:.*]] = arith.constant 3 : i32
// CHECK-NEXT: memref.atomic_rmw maxu %[[THREE]], %[[WORD]][] : (i32, memref<i32>) -> i32
// CHECK-NEXT: return
// CHECK-NOT: fw.allocation_check
func.func @k(%out: memref<?xf32>, %word: memref<i32>, %id: index, %count: index)
    attributes {fw.error_word, fw.allocation_check = 3 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %n = memref.dim %out, %c0 : memref<?xf32>
  %a = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
  memref.store %z, %a[%c0] : memref<?xf32>
  cf.br ^head(%c0 : index)
^head(%i: index):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^done
^body:
  %b = memref.alloc() : memref<4xf32>
  memref.store %z, %b[%c0] : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  %next = arith.addi %i, %c1 : index
  cf.br ^head(%next : index)
^done:
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

/// An element's bytes: both parts of a complex number, every lane of a vector.
// CHECK-LABEL: func.func @wide(
// CHECK: arith.constant 16 : index
// CHECK: memref.alloc(%{{.*}}) : memref<?xcomplex<f64>>
// CHECK: arith.constant 32 : index
// CHECK: memref.alloc(%{{.*}}) : memref<?xvector<8xf32>>
func.func @wide(%out: memref<?xf32>, %word: memref<i32>)
    attributes {fw.error_word, fw.allocation_check = 1 : i32} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %out, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xcomplex<f64>>
  memref.dealloc %a : memref<?xcomplex<f64>>
  %b = memref.alloc(%n) : memref<?xvector<8xf32>>
  memref.dealloc %b : memref<?xvector<8xf32>>
  return
}

// -----

/// negative_: a kernel without the mark keeps its allocations as they are.
// CHECK-LABEL: func.func @plain(
// CHECK-NOT: cf.cond_br
// CHECK-NOT: extract_aligned_pointer
func.func @plain(%out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %out, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

/// A marked kernel that allocates nothing (any more) loses the mark only.
// CHECK-LABEL: func.func @none(
// CHECK-SAME: attributes {fw.error_word} {
// CHECK-NEXT: return
func.func @none(%out: memref<?xf32>, %word: memref<i32>)
    attributes {fw.error_word, fw.allocation_check = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{has an allocation check but no error word}}
func.func @no_word(%out: memref<?xf32>) attributes {fw.allocation_check = 1 : i32} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %out, %c0 : memref<?xf32>
  %a = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return
}

// -----

// expected-error @+1 {{has an allocation check but is not a kernel that returns nothing}}
func.func @result(%word: memref<i32>) -> index
    attributes {fw.error_word, fw.allocation_check = 1 : i32} {
  %c4 = arith.constant 4 : index
  %a = memref.alloc(%c4) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  return %c4 : index
}

// -----

func.func @nested(%out: memref<?xf32>, %word: memref<i32>)
    attributes {fw.error_word, fw.allocation_check = 1 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %out, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{is nested in an operation; the allocation checks need the kernel's loops lowered to branches}}
    %a = memref.alloc() : memref<4xf32>
    memref.dealloc %a : memref<4xf32>
  }
  return
}
