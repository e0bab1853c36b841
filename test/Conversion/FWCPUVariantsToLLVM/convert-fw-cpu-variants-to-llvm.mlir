// RUN: %fw-opt %s --convert-fw-cpu-variants-to-llvm | FileCheck %s

/// The CPU variant's kernel becomes LLVM: renamed per variant, with its C
/// interface and the runtime entry __fwk_<executable>_<variant>. Loops come
/// from linalg; tanh becomes a polynomial (no libm call). Everything but the
/// entry has internal linkage.
/// The kernel's one loop is divided among workgroups (fw-cpu-distribute): the
/// variant is marked, and the entry passes the workgroup id and count
/// (fw_workgroup_t's id[0] and count[0]) after the buffers.
// CHECK-LABEL: fw.executable @k
// CHECK: fw.variant @cpu target(#fw.cpu<"x86-64-v3">) attributes {fw.workgroups}
// CHECK: llvm.func internal @k_cpu(
// CHECK: llvm.cond_br
// CHECK-NOT: llvm.intr.tanh
// CHECK-NOT: llvm.call @tanhf
// CHECK: llvm.fmul
// CHECK: llvm.func internal @_mlir_ciface_k_cpu(%{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64)
// CHECK: llvm.func @__fwk_k_cpu(%{{[a-z0-9]+}}: !llvm.ptr, %[[WG:[a-z0-9]+]]: !llvm.ptr)
// CHECK: llvm.load %[[WG]] : !llvm.ptr -> i32
// CHECK: llvm.getelementptr %[[WG]][3] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: llvm.call @_mlir_ciface_k_cpu({{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64) -> ()
// CHECK-NOT: func.func
/// negative_: variants for other targets are left to their own backends.
// CHECK: fw.variant @gpu target(#fw.cuda<"sm_90">)
// CHECK-NEXT: builtin.module
// CHECK-NEXT: func.func @k(
#id = affine_map<(d0) -> (d0)>
fw.executable @k attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<?xf32>, tensor<?xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @k(%in: memref<?xf32>, %out: memref<?xf32>) {
        linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
            ins(%in : memref<?xf32>) outs(%out : memref<?xf32>) {
        ^bb0(%x: f32, %o: f32):
          %t = math.tanh %x : f32
          linalg.yield %t : f32
        }
        return
      }
    }
  }
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @k(%in: memref<?xf32>, %out: memref<?xf32>) {
        return
      }
    }
  }
}
