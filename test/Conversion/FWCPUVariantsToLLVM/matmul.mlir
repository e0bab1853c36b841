// RUN: %fw-opt %s --convert-fw-cpu-variants-to-llvm | FileCheck %s

/// An f32 matmul in a CPU kernel becomes the packed GEMM of fw-cpu-matmul,
/// sized for the variant's target: its vector.contract is lowered through
/// outer products to one broadcast and fused multiply-add per row of the
/// register tile (6 rows of 16 floats for x86-64-v3, 12 of 32 for v4), and
/// the masked transfers at the edges to masked loads and stores. Its packed
/// panels come from the runtime (fw_rt_kernel_alloc, slot 10 of the table).
// CHECK-LABEL: llvm.func internal @mm_v3(
// CHECK: llvm.getelementptr %{{.*}}[0, 10] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<12 x ptr>
// CHECK: llvm.intr.masked.load {{.*}} -> vector<16xf32>
// CHECK-COUNT-6: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK: llvm.intr.masked.store
// CHECK: llvm.getelementptr %{{.*}}[0, 11] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<12 x ptr>
// CHECK-NOT: vector.
// CHECK-LABEL: llvm.func internal @mm_v4(
// CHECK-COUNT-12: llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
fw.executable @mm attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<readwrite>], bindings = [tensor<100x70xf32>, tensor<70x50xf32>, tensor<100x50xf32>]} {
  fw.variant @v3 target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @mm(%a: memref<100x70xf32>, %b: memref<70x50xf32>, %c: memref<100x50xf32>) {
        linalg.matmul ins(%a, %b : memref<100x70xf32>, memref<70x50xf32>) outs(%c : memref<100x50xf32>)
        return
      }
    }
  }
  fw.variant @v4 target(#fw.cpu<"x86-64-v4">) {
    builtin.module {
      func.func @mm(%a: memref<100x70xf32>, %b: memref<70x50xf32>, %c: memref<100x50xf32>) {
        linalg.matmul ins(%a, %b : memref<100x70xf32>, memref<70x50xf32>) outs(%c : memref<100x50xf32>)
        return
      }
    }
  }
}
