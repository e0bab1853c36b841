// RUN: %fw-opt %s --fw-bufferize | FileCheck %s

/// Kernels: the aggregate softmax is decomposed and bufferized; results are
/// written straight into the result binding (no temporary for the output).
// CHECK-LABEL: fw.executable @main_dispatch_0
// CHECK: func.func @main_dispatch_0(%[[IN:[a-z0-9]+]]: memref<?x8xf32>, %[[OUT:[a-z0-9]+]]: memref<?x8xf32>)
// CHECK-NOT: linalg.softmax
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NEXT: linalg.yield
// CHECK: outs(%[[OUT]] : memref<?x8xf32>)
// CHECK-LABEL: fw.executable @main_dispatch_1
// CHECK: func.func @main_dispatch_1(%[[X:[a-z0-9]+]]: memref<?x8xf32>, %[[Y:[a-z0-9]+]]: memref<?x8xf32>, %[[Z:[a-z0-9]+]]: memref<?x8xf32>)
// CHECK-NOT: memref.alloc
// CHECK: linalg.add ins(%[[X]], %[[Y]] : memref<?x8xf32>, memref<?x8xf32>) outs(%[[Z]] : memref<?x8xf32>)

/// Host: buffers in the host tier, one fw.alloc per result, asynchronous
/// dispatches, the intermediate released after its last dispatch, and no wait
/// before returning (the runtime waits for the call's tasks before it hands
/// the results over). Sizes of invoke results are known without a query.
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x8xf32, #fw.tier<host>>) -> memref<?x8xf32, #fw.tier<host>>
// CHECK-SAME: fw.signature = (tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: %[[D:.*]] = memref.dim %[[A]]
// CHECK: %[[B0:.*]] = fw.alloc(%[[D]]) : memref<?x8xf32, #fw.tier<host>>
// CHECK: %[[T0:.*]] = fw.dispatch @main_dispatch_0(%[[A]], %[[B0]]) access([#fw.access<read>, #fw.access<write>])
// CHECK-NOT: memref.dim
// CHECK: %[[B1:.*]] = fw.alloc(%[[D]])
// CHECK: %[[T1:.*]] = fw.dispatch @main_dispatch_1(%[[B0]], %[[A]], %[[B1]]) access([#fw.access<read>, #fw.access<read>, #fw.access<write>])
// CHECK-NEXT: fw.dealloc %[[B0]]
// CHECK-NEXT: return %[[B1]]
// CHECK-NOT: fw.wait
module attributes {fw.targets = [#fw.cpu<"x86-64-v3">]} {
  fw.executable @main_dispatch_0 attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<?x8xf32>, tensor<?x8xf32>]} {
    fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">) {
      builtin.module {
        func.func @main_dispatch_0(%arg0: memref<?x8xf32>, %arg1: memref<?x8xf32>) {
          %0 = bufferization.to_tensor %arg0 restrict : memref<?x8xf32> to tensor<?x8xf32>
          %c0 = arith.constant 0 : index
          %dim = tensor.dim %0, %c0 : tensor<?x8xf32>
          %1 = tensor.empty(%dim) : tensor<?x8xf32>
          %2 = linalg.softmax dimension(1) ins(%0 : tensor<?x8xf32>) outs(%1 : tensor<?x8xf32>) -> tensor<?x8xf32>
          bufferization.materialize_in_destination %2 in restrict writable %arg1 : (tensor<?x8xf32>, memref<?x8xf32>) -> ()
          return
        }
      }
    }
  }
  fw.executable @main_dispatch_1 attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<write>], bindings = [tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>]} {
    fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">) {
      builtin.module {
        func.func @main_dispatch_1(%arg0: memref<?x8xf32>, %arg1: memref<?x8xf32>, %arg2: memref<?x8xf32>) {
          %0 = bufferization.to_tensor %arg0 restrict : memref<?x8xf32> to tensor<?x8xf32>
          %1 = bufferization.to_tensor %arg1 restrict : memref<?x8xf32> to tensor<?x8xf32>
          %c0 = arith.constant 0 : index
          %dim = tensor.dim %1, %c0 : tensor<?x8xf32>
          %2 = tensor.empty(%dim) : tensor<?x8xf32>
          %3 = linalg.add ins(%0, %1 : tensor<?x8xf32>, tensor<?x8xf32>) outs(%2 : tensor<?x8xf32>) -> tensor<?x8xf32>
          bufferization.materialize_in_destination %3 in restrict writable %arg2 : (tensor<?x8xf32>, memref<?x8xf32>) -> ()
          return
        }
      }
    }
  }
  func.func @main(%arg0: tensor<?x8xf32>) -> tensor<?x8xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x8xf32>
    %0 = fw.invoke @main_dispatch_0(%arg0) : (tensor<?x8xf32>) -> tensor<?x8xf32> dims(%dim)
    %dim_0 = tensor.dim %0, %c0 : tensor<?x8xf32>
    %1 = arith.cmpi eq, %dim_0, %dim : index
    fw.assert %1, "'linalg.add': dimension 0 of operand 0 and dimension 0 of operand 1 must be equal (b.mlir:7)"
    fw.assert %1, "'linalg.add': dimension 0 of operand 0 and dimension 0 of operand 2 must be equal (b.mlir:7)"
    %2 = fw.invoke @main_dispatch_1(%0, %arg0) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> dims(%dim)
    return %2 : tensor<?x8xf32>
  }
}
