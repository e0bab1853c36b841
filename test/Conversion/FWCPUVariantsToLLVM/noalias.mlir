// RUN: %fw-opt %s --split-input-file --convert-fw-cpu-variants-to-llvm | FileCheck %s

/// The host binds a kernel's writes only to buffers no other binding reaches,
/// so each binding's aligned pointer is noalias in the kernel (its expanded
/// arguments: allocated, aligned, offset, sizes, strides per memref): LLVM
/// keeps the id it read in a register and copies the rows as blocks.
// CHECK-LABEL: llvm.func internal @lookup_cpu(
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr {llvm.noalias}, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64,
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr {llvm.noalias}, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64,
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr {llvm.noalias}, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64)
// CHECK-NOT: fw.noalias_params
fw.executable @lookup attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<write>], bindings = [tensor<100x64xf32>, tensor<8xi64>, tensor<8x64xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @lookup(%t: memref<100x64xf32>, %ids: memref<8xi64>, %o: memref<8x64xf32>) {
        linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
            ins(%ids : memref<8xi64>) outs(%o : memref<8x64xf32>) {
        ^bb0(%id: i64, %x: f32):
          %i = arith.index_cast %id : i64 to index
          %j = linalg.index 1 : index
          %v = memref.load %t[%i, %j] : memref<100x64xf32>
          linalg.yield %v : f32
        }
        return
      }
    }
  }
}

// -----

/// A kernel that a dispatch runs in place (fw-reuse-buffers) may read and
/// write one buffer through two bindings of the same element type and rank:
/// only a binding no other one could share is noalias.
// CHECK-LABEL: llvm.func internal @axpy_cpu(
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64,
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr {llvm.noalias}, %{{[a-z0-9]+}}: i64,
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64)
fw.executable @axpy attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<write>], bindings = [tensor<256xf32>, tensor<f32>, tensor<256xf32>], fw.in_place} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @axpy(%x: memref<256xf32>, %a: memref<f32>, %y: memref<256xf32>) {
        %s = memref.load %a[] : memref<f32>
        linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}
            ins(%x : memref<256xf32>) outs(%y : memref<256xf32>) {
        ^bb0(%v: f32, %o: f32):
          %r = arith.mulf %v, %s : f32
          linalg.yield %r : f32
        }
        return
      }
    }
  }
}
