// RUN: %fw-opt %s --split-input-file --fw-outline-tasks | FileCheck %s

/// Two targets give two variants with the same kernel; inputs come in through
/// to_tensor, the result goes out through materialize_in_destination.
// CHECK-LABEL: fw.executable @main_dispatch_0
// CHECK-SAME: access = [#fw.access<read>, #fw.access<write>]
// CHECK-SAME: bindings = [tensor<?x4xf32>, tensor<?x4xf32>]
// CHECK-SAME: flops = 7 : i64
// CHECK: fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">)
// CHECK: func.func @main_dispatch_0(%[[IN:[a-z0-9]+]]: memref<?x4xf32>, %[[OUT:[a-z0-9]+]]: memref<?x4xf32>)
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[IN]] restrict : memref<?x4xf32> to tensor<?x4xf32>
// CHECK: %[[N:.*]] = math.exp %[[T]]
// CHECK: bufferization.materialize_in_destination %[[N]] in restrict writable %[[OUT]]
// CHECK: fw.variant @cpu_x86_64_v4 target(#fw.cpu<"x86-64-v4">)
// CHECK: func.func @main_dispatch_0
// CHECK-LABEL: func.func @main(
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<?x4xf32>, %[[D:[a-z0-9]+]]: index)
// CHECK: %[[R:.*]] = fw.invoke @main_dispatch_0(%[[A]]) : (tensor<?x4xf32>) -> tensor<?x4xf32> dims(%[[D]])
// CHECK: return %[[R]]
module attributes {fw.targets = [#fw.cpu<"x86-64-v3">, #fw.cpu<"x86-64-v4">]} {
  func.func @main(%a: tensor<?x4xf32>, %d: index) -> tensor<?x4xf32> {
    %r = fw.task(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32> dims(%d) attributes {flops = 7 : i64} {
    ^bb0(%x: tensor<?x4xf32>):
      %e = math.exp %x : tensor<?x4xf32>
      fw.yield %e : tensor<?x4xf32>
    }
    return %r : tensor<?x4xf32>
  }
}

// -----

/// Without fw.targets the portable CPU target is used; names do not collide
/// with existing symbols.
// CHECK-LABEL: fw.executable @f_dispatch_1
// CHECK: fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">)
// CHECK: func.func @f_dispatch_1(%{{[a-z0-9]+}}: memref<2xi32>, %{{[a-z0-9]+}}: memref<2xi32>, %{{[a-z0-9]+}}: memref<2xi1>)
// CHECK-COUNT-2: bufferization.materialize_in_destination
// CHECK-LABEL: func.func @f(
// CHECK: fw.invoke @f_dispatch_1(%{{.*}}) : (tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi1>)
func.func private @f_dispatch_0()
func.func @f(%a: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi1>) {
  %r:2 = fw.task(%a) : (tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi1>) {
  ^bb0(%x: tensor<2xi32>):
    %s = arith.addi %x, %x : tensor<2xi32>
    %c = arith.cmpi sgt, %x, %s : tensor<2xi32>
    fw.yield %s, %c : tensor<2xi32>, tensor<2xi1>
  }
  return %r#0, %r#1 : tensor<2xi32>, tensor<2xi1>
}

// -----

/// An operation count in dynamic dims carries over to the executable, whose
/// bindings number the task's operands and then its results.
// CHECK-LABEL: fw.executable @g_dispatch_0
// CHECK-SAME: bindings = [tensor<?x4xf32>, tensor<?x4xf32>]
// CHECK-SAME: flops_terms = [array<i64: 4, 1, 0>]
func.func @g(%a: tensor<?x4xf32>, %d: index) -> tensor<?x4xf32> {
  %r = fw.task(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32> dims(%d) attributes {flops_terms = [array<i64: 4, 1, 0>]} {
  ^bb0(%x: tensor<?x4xf32>):
    %e = math.exp %x : tensor<?x4xf32>
    fw.yield %e : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}
