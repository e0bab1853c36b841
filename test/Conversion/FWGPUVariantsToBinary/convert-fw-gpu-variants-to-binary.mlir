// REQUIRES: ptxas
// RUN: %fw-opt %s --split-input-file --convert-fw-gpu-variants-to-binary --verify-diagnostics | FileCheck %s

/// A kernel of one linalg op becomes a grid-stride loop over its iteration
/// space: every thread starts at its global index and strides by the grid
/// (any grid computes the whole op); the PTX and the cubin are attached to
/// the variant and its module is emptied. CPU variants are left alone.
// CHECK-LABEL: fw.executable @k
// CHECK: fw.variant @cpu target(#fw.cpu<"x86-64-v3">)
// CHECK: linalg.generic
// CHECK: fw.variant @gpu target(#fw.cuda<"sm_90">) attributes
// CHECK-SAME: fw.block_size = 256 : i64
// CHECK-SAME: fw.cubin = "\7FELF
// CHECK-SAME: fw.kernel = "k"
// CHECK-SAME: .target sm_90
// CHECK-SAME: .entry k(
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: %ctaid.x
// CHECK-SAME: %nctaid.x
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: }
#id = affine_map<(d0, d1) -> (d0, d1)>
fw.executable @k attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<?x?xf32>, tensor<?x?xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @k(%in: memref<?x?xf32>, %out: memref<?x?xf32>) {
        linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
            ins(%in : memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.exp %x : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @k(%in: memref<?x?xf32>, %out: memref<?x?xf32>) {
        linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
            ins(%in : memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.exp %x : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
}

// -----

/// negative_: a kernel of two ops is not mapped yet; with another variant
/// the NVIDIA one is dropped with a warning.
// CHECK-LABEL: fw.executable @two
// CHECK: fw.variant @cpu
// CHECK-NOT: fw.variant @gpu
fw.executable @two attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<4xf32>, tensor<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @two(%in: memref<4xf32>, %out: memref<4xf32>) {
        return
      }
    }
  }
  // expected-warning @+1 {{not compiled for sm_90: only kernels made of one linalg operation are supported yet; the other targets run it}}
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func @two(%in: memref<4xf32>, %out: memref<4xf32>) {
        %zero = arith.constant 0.0 : f32
        linalg.fill ins(%zero : f32) outs(%out : memref<4xf32>)
        linalg.copy ins(%in : memref<4xf32>) outs(%out : memref<4xf32>)
        return
      }
    }
  }
}

// -----

/// negative_: a variant whose module has no kernel (empty, or only a
/// declaration) is an error, not a crash.
fw.executable @empty attributes {access = [], bindings = []} {
  // expected-error @+1 {{cannot be compiled for sm_90 yet: only kernels made of one linalg operation are supported; add a CPU target}}
  fw.variant @gpu target(#fw.cuda<"sm_90">) {
    builtin.module {
      func.func private @empty()
    }
  }
}
