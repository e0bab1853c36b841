// RUN: %fwc %s --compile-to=llvm | FileCheck %s

// A matmul kernel allocates nothing of its own at the buffers phase, but
// fw-cpu-matmul packs panels of A and B into buffers it allocates. They come
// from the runtime, through slot 10 of the module's function table
// (fw_rt_kernel_alloc; freed through slot 11, fw_rt_kernel_free). Each
// pointer is tested, and a null one raises the kernel's out-of-memory check
// on its error word and returns at once: the runtime frees the panel
// allocated before it.
// CHECK-LABEL: fw.executable @mm_dispatch_0
// CHECK-SAME: checks = ["out of memory: the kernel could not allocate a buffer of its own"]
// CHECK: llvm.mlir.global external @__fw_rt_table() {{.*}} : !llvm.array<12 x ptr>{{$}}
// CHECK-NOT: _mlir_memref_to_llvm
// CHECK-NOT: @malloc
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[0, 10] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<12 x ptr>
// CHECK-NEXT: %[[ALLOC:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[P:.*]] = llvm.call %[[ALLOC]](%{{.*}}, %{{.*}}) : !llvm.ptr, (i64, i64) -> !llvm.ptr
// CHECK: %[[NULL:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: llvm.cond_br %[[NULL]] weights([1, 1048576]), ^[[REFUSED:.*]], ^{{.*}}
// CHECK: %[[Q:.*]] = llvm.call %{{.*}}(%{{.*}}, %{{.*}}) : !llvm.ptr, (i64, i64) -> !llvm.ptr
// CHECK: llvm.cond_br %{{.*}} weights([1, 1048576]), ^[[REFUSED]], ^{{.*}}
// CHECK: %[[FSLOT:.*]] = llvm.getelementptr %{{.*}}[0, 11] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<12 x ptr>
// CHECK-NEXT: %[[FREE:.*]] = llvm.load %[[FSLOT]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: llvm.call %[[FREE]](%[[Q]]) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK: llvm.call %{{.*}}(%[[P]]) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.return
// CHECK-NEXT: ^[[REFUSED]]:
// CHECK-NEXT: llvm.atomicrmw umax %{{.*}}, %{{.*}} acq_rel : !llvm.ptr, i32
// CHECK-NEXT: llvm.return
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
