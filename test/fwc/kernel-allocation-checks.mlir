// RUN: %fwc %s --compile-to=llvm | FileCheck %s

// A matmul kernel allocates nothing of its own at the buffers phase, but
// fw-cpu-matmul packs panels of A and B into buffers it allocates: each
// pointer malloc returns is tested, and a null one raises the kernel's
// out-of-memory check on its error word and returns, freeing the panel
// allocated before it.
// CHECK-LABEL: fw.executable @mm_dispatch_0
// CHECK-SAME: checks = ["out of memory: the kernel could not allocate a buffer of its own"]
// CHECK: %[[P:.*]] = llvm.call @malloc(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK: %[[NULL:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: llvm.cond_br %[[NULL]] weights([1, 1048576]), ^[[REFUSED:.*]], ^{{.*}}
// CHECK: llvm.call @malloc
// CHECK: llvm.cond_br %{{.*}} weights([1, 1048576]), ^[[FREE:.*]], ^{{.*}}
// CHECK: ^[[FREE]]:
// CHECK-NEXT: llvm.call @free(%[[P]])
// CHECK-NEXT: llvm.br ^[[REFUSED]]
// CHECK: ^[[REFUSED]]:
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
