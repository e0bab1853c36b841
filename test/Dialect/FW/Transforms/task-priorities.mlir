// RUN: %fw-opt %s --fw-task-priorities | FileCheck %s

/// A diamond a -> (b, c) -> d: b and c are independent (same level); ranks
/// grow towards the entry, and the costlier branch c ranks above b. The
/// write of %x by e after b and c read it orders e after both (WAR).
fw.executable @a attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<4xf32>, tensor<4xf32>], flops = 100 : i64} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}
fw.executable @b attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<4xf32>, tensor<4xf32>], flops = 10 : i64} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}
fw.executable @c attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<4xf32>, tensor<4xf32>], flops = 50 : i64} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}
fw.executable @d attributes {access = [#fw.access<read>, #fw.access<read>, #fw.access<write>], bindings = [tensor<4xf32>, tensor<4xf32>, tensor<4xf32>], flops = 1 : i64} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}
fw.executable @e attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<4xf32>, tensor<4xf32>], flops = 1 : i64} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

// CHECK-LABEL: fw.executable @a
// CHECK-SAME: fw.priority = 2147483647 : i64
// CHECK-LABEL: func.func @diamond
// CHECK: %[[A:.*]] = fw.dispatch @a{{.*}}fw.level = 0 : i64, fw.priority = 2147483647 : i64
// CHECK: fw.dispatch @b{{.*}}fw.level = 1 : i64, fw.priority = [[PB:[0-9]+]] : i64
// CHECK: fw.dispatch @c{{.*}}fw.level = 1 : i64, fw.priority = [[PC:[0-9]+]] : i64
// CHECK: fw.dispatch @d{{.*}}fw.level = 2 : i64
// CHECK: fw.dispatch @e{{.*}}fw.level = 2 : i64
func.func @diamond(%in: memref<4xf32, #fw.tier<host>>) -> memref<4xf32, #fw.tier<host>> {
  %x = fw.alloc() : memref<4xf32, #fw.tier<host>>
  %y = fw.alloc() : memref<4xf32, #fw.tier<host>>
  %z = fw.alloc() : memref<4xf32, #fw.tier<host>>
  %w = fw.alloc() : memref<4xf32, #fw.tier<host>>
  %t0 = fw.dispatch @a(%in, %x) access([#fw.access<read>, #fw.access<write>]) : memref<4xf32, #fw.tier<host>>, memref<4xf32, #fw.tier<host>>
  %t1 = fw.dispatch @b(%x, %y) access([#fw.access<read>, #fw.access<write>]) : memref<4xf32, #fw.tier<host>>, memref<4xf32, #fw.tier<host>>
  %t2 = fw.dispatch @c(%x, %z) access([#fw.access<read>, #fw.access<write>]) : memref<4xf32, #fw.tier<host>>, memref<4xf32, #fw.tier<host>>
  %t3 = fw.dispatch @d(%y, %z, %w) access([#fw.access<read>, #fw.access<read>, #fw.access<write>]) : memref<4xf32, #fw.tier<host>>, memref<4xf32, #fw.tier<host>>, memref<4xf32, #fw.tier<host>>
  %t4 = fw.dispatch @e(%in, %x) access([#fw.access<read>, #fw.access<write>]) : memref<4xf32, #fw.tier<host>>, memref<4xf32, #fw.tier<host>>
  fw.wait %t0, %t1, %t2, %t3, %t4
  return %w : memref<4xf32, #fw.tier<host>>
}

/// Counts in dynamic dims rank with every such dim taken as 1024: the count
/// quadratic in the batch (1 × 1024 × 1024) ranks first, the linear one
/// (10 × 1024) at a hundredth of it, rather than both alike.
fw.executable @linear attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<?xf32>, tensor<?xf32>], flops_terms = [array<i64: 10, 0, 0>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}
fw.executable @quadratic attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<?xf32>, tensor<?x?xf32>], flops_terms = [array<i64: 1, 1, 0, 1, 1>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

// CHECK-LABEL: func.func @dynamic
// CHECK: fw.dispatch @linear{{.*}}fw.level = 0 : i64, fw.priority = 20971520 : i64
// CHECK: fw.dispatch @quadratic{{.*}}fw.level = 0 : i64, fw.priority = 2147483647 : i64
func.func @dynamic(%in: memref<?xf32, #fw.tier<host>>, %a: memref<?xf32, #fw.tier<host>>, %b: memref<?x?xf32, #fw.tier<host>>) {
  %t0 = fw.dispatch @linear(%in, %a) access([#fw.access<read>, #fw.access<write>]) : memref<?xf32, #fw.tier<host>>, memref<?xf32, #fw.tier<host>>
  %t1 = fw.dispatch @quadratic(%in, %b) access([#fw.access<read>, #fw.access<write>]) : memref<?xf32, #fw.tier<host>>, memref<?x?xf32, #fw.tier<host>>
  fw.wait %t0, %t1
  return
}
