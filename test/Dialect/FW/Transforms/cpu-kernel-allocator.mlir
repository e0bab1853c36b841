// RUN: %fw-opt %s --split-input-file --verify-diagnostics --fw-cpu-kernel-allocator | FileCheck %s

/// MLIR's generic allocation functions become the runtime's, called through
/// the module's function table: fw_rt_kernel_alloc (slot 10) with the
/// alignment (0 for the C library's default) and the size, fw_rt_kernel_free
/// (slot 11). The table is declared, not defined (the host code defines it);
/// the generic functions' declarations go.
// CHECK-LABEL: module {
// CHECK-NEXT: llvm.mlir.global external @__fw_rt_table() {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.array<12 x ptr>{{$}}
// CHECK-NOT: _mlir_memref_to_llvm
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: %[[N:.*]]: i64, %[[A:.*]]: i64)
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: %[[T:.*]] = llvm.mlir.addressof @__fw_rt_table : !llvm.ptr
// CHECK-NEXT: %[[S:.*]] = llvm.getelementptr %[[T]][0, 10] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<12 x ptr>
// CHECK-NEXT: %[[F:.*]] = llvm.load %[[S]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[P:.*]] = llvm.call %[[F]](%[[ZERO]], %[[N]]) : !llvm.ptr, (i64, i64) -> !llvm.ptr
// CHECK: %[[T2:.*]] = llvm.mlir.addressof @__fw_rt_table : !llvm.ptr
// CHECK-NEXT: %[[S2:.*]] = llvm.getelementptr %[[T2]][0, 10]
// CHECK-NEXT: %[[F2:.*]] = llvm.load %[[S2]]
// CHECK-NEXT: %[[Q:.*]] = llvm.call %[[F2]](%[[A]], %[[N]]) : !llvm.ptr, (i64, i64) -> !llvm.ptr
// CHECK: %[[S3:.*]] = llvm.getelementptr %{{.*}}[0, 11] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<12 x ptr>
// CHECK-NEXT: %[[F3:.*]] = llvm.load %[[S3]]
// CHECK-NEXT: llvm.call %[[F3]](%[[Q]]) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK: llvm.call %{{.*}}(%[[P]]) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.return
module {
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
  llvm.func @k(%n: i64, %align: i64) {
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
    %q = llvm.call @_mlir_memref_to_llvm_aligned_alloc(%align, %n) : (i64, i64) -> !llvm.ptr
    llvm.call @_mlir_memref_to_llvm_free(%q) : (!llvm.ptr) -> ()
    llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> ()
    llvm.return
  }
}

// -----

/// negative_: a kernel that allocates nothing needs no table.
// CHECK-LABEL: module {
// CHECK-NOT: __fw_rt_table
// CHECK: llvm.call @malloc
module {
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @k(%n: i64) -> !llvm.ptr {
    %p = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
    llvm.return %p : !llvm.ptr
  }
}

// -----

// expected-error @+1 {{symbol '__fw_rt_table' is reserved for the runtime}}
module {
  llvm.mlir.global external @__fw_rt_table() : i64
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
  llvm.func @k(%n: i64) -> !llvm.ptr {
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
    llvm.return %p : !llvm.ptr
  }
}

// -----

/// A call that does not have the signature the memref lowering gives is
/// named (it was rewritten into a call the runtime would misread).
module {
  llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr) -> i32
  llvm.func @k(%p: !llvm.ptr) -> i32 {
    // expected-error @+1 {{calls '_mlir_memref_to_llvm_free' as '!llvm.func<i32 (ptr)>'; the memref lowering calls it as '!llvm.func<void (ptr)>'}}
    %r = llvm.call @_mlir_memref_to_llvm_free(%p) : (!llvm.ptr) -> i32
    llvm.return %r : i32
  }
}

// -----

/// negative_: the functions of a nested module are that module's (a kernel
/// module is run on its own).
// CHECK-LABEL: module {
// CHECK-NOT: __fw_rt_table
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc
module {
  module {
    llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
    llvm.func @k(%n: i64) -> !llvm.ptr {
      %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
      llvm.return %p : !llvm.ptr
    }
  }
}
