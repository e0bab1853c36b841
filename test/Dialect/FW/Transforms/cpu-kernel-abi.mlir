// RUN: %fw-opt %s --split-input-file --fw-cpu-kernel-abi --verify-diagnostics | FileCheck %s

/// The entry loads one descriptor pointer per binding and calls the C
/// interface; the marker attribute is consumed.
// CHECK-LABEL: llvm.func @k(
// CHECK-NOT: fw.kernel_symbol
// CHECK-LABEL: llvm.func @_mlir_ciface_k(
// CHECK-NOT: fw.kernel_symbol
// CHECK-LABEL: llvm.func @__fwk_k_cpu(
// CHECK-SAME: %[[DESCS:[a-z0-9]+]]: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr)
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[DESCS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[D0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[P1:.*]] = llvm.getelementptr %[[DESCS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[D1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @_mlir_ciface_k(%[[D0]], %[[D1]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK: llvm.return
module {
  llvm.func @k(%a: !llvm.ptr, %b: !llvm.ptr) attributes {fw.kernel_symbol = "__fwk_k_cpu"} {
    llvm.return
  }
  llvm.func @_mlir_ciface_k(%a: !llvm.ptr, %b: !llvm.ptr) attributes {fw.kernel_symbol = "__fwk_k_cpu"} {
    llvm.call @k(%a, %b) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.return
  }
}

// -----

/// negative_: functions without the marker are left alone.
// CHECK-LABEL: llvm.func @negative_plain
// CHECK-NOT: llvm.func @__fwk
module {
  llvm.func @negative_plain(%a: !llvm.ptr) {
    llvm.return
  }
}

// -----

module {
  // expected-error @+1 {{'llvm.func' op has no C interface '_mlir_ciface_k'; mark it with llvm.emit_c_interface}}
  llvm.func @k(%a: !llvm.ptr) attributes {fw.kernel_symbol = "__fwk_k_cpu"} {
    llvm.return
  }
}

// -----

module {
  // expected-error @+1 {{'llvm.func' op has a non-memref argument of type 'i64'; CPU kernels take buffers only}}
  llvm.func @k(%a: i64) attributes {fw.kernel_symbol = "__fwk_k_cpu"} {
    llvm.return
  }
  llvm.func @_mlir_ciface_k(%a: i64) {
    llvm.return
  }
}

// -----

module {
  // expected-error @+1 {{'llvm.func' op kernel symbol '__fwk_k_cpu' is already defined}}
  llvm.func @k(%a: !llvm.ptr) attributes {fw.kernel_symbol = "__fwk_k_cpu"} {
    llvm.return
  }
  llvm.func @_mlir_ciface_k(%a: !llvm.ptr) {
    llvm.return
  }
  llvm.func @__fwk_k_cpu(%a: !llvm.ptr, %b: !llvm.ptr) {
    llvm.return
  }
}

// -----

/// A kernel with an error word (fw-kernel-error-word) gets it after its
/// buffers, as the descriptor of a memref<i32> built from the workgroup's
/// `error` field (byte 24), and before its workgroup id and count.
// CHECK-LABEL: llvm.func @__fwk_checked_cpu(
// CHECK-SAME: %[[DESCS:[a-z0-9]+]]: !llvm.ptr, %[[WG:[a-z0-9]+]]: !llvm.ptr)
// CHECK: %[[D0:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[WG]][6] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: %[[WORD:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[DESC:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64)>
// CHECK: llvm.insertvalue %[[WORD]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[WORD]], %{{.*}}[1]
// CHECK: llvm.store %{{.*}}, %[[DESC]]
// CHECK: llvm.getelementptr %[[WG]][0]
// CHECK: llvm.getelementptr %[[WG]][3]
// CHECK: llvm.call @_mlir_ciface_checked(%[[D0]], %[[DESC]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64) -> ()
module {
  llvm.func @checked(%a: !llvm.ptr, %w: !llvm.ptr, %id: i64, %n: i64) attributes {fw.kernel_symbol = "__fwk_checked_cpu", fw.error_word, fw.workgroups} {
    llvm.return
  }
  llvm.func @_mlir_ciface_checked(%a: !llvm.ptr, %w: !llvm.ptr, %id: i64, %n: i64) attributes {fw.kernel_symbol = "__fwk_checked_cpu", fw.error_word, fw.workgroups} {
    llvm.return
  }
}
