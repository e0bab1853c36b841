// RUN: %fw-opt %s --split-input-file --pass-pipeline='builtin.module(fw-reuse-buffers{report=true})' --verify-diagnostics | FileCheck %s

fw.executable @k attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<256xf32>, tensor<256xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

/// A chain: the buffer released after the second dispatch serves the third
/// allocation, which then releases it; the peak does not change, one
/// allocation is saved.
// CHECK-LABEL: func.func @chain
// CHECK: %[[A:.*]] = fw.alloc() : memref<256xf32, #fw.tier<host>>
// CHECK: fw.dispatch @k(%{{.*}}, %[[A]])
// CHECK: %[[B:.*]] = fw.alloc() : memref<256xf32, #fw.tier<host>>
// CHECK: fw.dispatch @k(%[[A]], %[[B]])
// CHECK-NOT: fw.alloc
// CHECK-NOT: fw.dealloc %[[A]]
// CHECK: fw.dispatch @k(%[[B]], %[[A]])
// CHECK: fw.dealloc %[[B]]
// CHECK: fw.dispatch @k(%[[A]], %{{.*}})
// CHECK: fw.dealloc %[[A]]
// expected-remark @+1 {{allocated buffers: peak 2048 bytes before reuse, 2048 bytes after (1 reused, 0 updated in place)}}
func.func @chain(%in: memref<256xf32, #fw.tier<host>>, %out: memref<256xf32, #fw.tier<host>>) {
  %a = fw.alloc() : memref<256xf32, #fw.tier<host>>
  %t0 = fw.dispatch @k(%in, %a) access([#fw.access<read>, #fw.access<write>]) : memref<256xf32, #fw.tier<host>>, memref<256xf32, #fw.tier<host>>
  %b = fw.alloc() : memref<256xf32, #fw.tier<host>>
  %t1 = fw.dispatch @k(%a, %b) access([#fw.access<read>, #fw.access<write>]) : memref<256xf32, #fw.tier<host>>, memref<256xf32, #fw.tier<host>>
  fw.dealloc %a : memref<256xf32, #fw.tier<host>>
  %c = fw.alloc() : memref<256xf32, #fw.tier<host>>
  %t2 = fw.dispatch @k(%b, %c) access([#fw.access<read>, #fw.access<write>]) : memref<256xf32, #fw.tier<host>>, memref<256xf32, #fw.tier<host>>
  fw.dealloc %b : memref<256xf32, #fw.tier<host>>
  %t3 = fw.dispatch @k(%c, %out) access([#fw.access<read>, #fw.access<write>]) : memref<256xf32, #fw.tier<host>>, memref<256xf32, #fw.tier<host>>
  fw.dealloc %c : memref<256xf32, #fw.tier<host>>
  fw.wait %t0, %t1, %t2, %t3
  return
}

// -----

fw.executable @k attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<?xf32>, tensor<?xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

/// negative_: buffers of different sizes are not exchanged; a buffer nothing
/// can use is released where it was.
// CHECK-LABEL: func.func @negative_sizes
// CHECK: %[[A:.*]] = fw.alloc(%[[N:.*]])
// CHECK: fw.dealloc %[[A]]
// CHECK: fw.alloc(%[[M:.*]])
// expected-remark @+1 {{allocated buffers: peak 0 bytes before reuse, 0 bytes after (0 reused, 0 updated in place, 2 dynamically sized not counted)}}
func.func @negative_sizes(%in: memref<?xf32, #fw.tier<host>>, %n: index, %m: index) {
  %a = fw.alloc(%n) : memref<?xf32, #fw.tier<host>>
  %t0 = fw.dispatch @k(%in, %a) access([#fw.access<read>, #fw.access<write>]) : memref<?xf32, #fw.tier<host>>, memref<?xf32, #fw.tier<host>>
  fw.dealloc %a : memref<?xf32, #fw.tier<host>>
  %b = fw.alloc(%m) : memref<?xf32, #fw.tier<host>>
  %t1 = fw.dispatch @k(%in, %b) access([#fw.access<read>, #fw.access<write>]) : memref<?xf32, #fw.tier<host>>, memref<?xf32, #fw.tier<host>>
  fw.dealloc %b : memref<?xf32, #fw.tier<host>>
  fw.wait %t0, %t1
  return
}

// -----

fw.executable @neg attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<256xf32>, tensor<256xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @neg(%a: memref<256xf32>, %b: memref<256xf32>) {
        linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}
            ins(%a : memref<256xf32>) outs(%b : memref<256xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = arith.negf %x : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }
}

fw.executable @rev attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<256xf32>, tensor<256xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {
      func.func @rev(%a: memref<256xf32>, %b: memref<256xf32>) {
        linalg.generic {indexing_maps = [affine_map<(i) -> (255 - i)>, affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}
            ins(%a : memref<256xf32>) outs(%b : memref<256xf32>) {
        ^bb0(%x: f32, %o: f32):
          linalg.yield %x : f32
        }
        return
      }
    }
  }
}

/// An elementwise kernel reading an intermediate for the last time writes
/// its result into that intermediate: the fresh allocation and the release
/// of the input disappear, and the result is the input's buffer. Its
/// executable says so (its bindings overlap).
// CHECK: fw.executable @neg attributes {{{.*}}fw.in_place
// CHECK-NOT: fw.in_place
// CHECK-LABEL: func.func @in_place
// CHECK: %[[T:.*]] = fw.alloc() : memref<256xf32, #fw.tier<host>>
// CHECK: fw.dispatch @neg(%arg0, %[[T]])
// CHECK-NOT: fw.alloc
// CHECK: fw.dispatch @neg(%[[T]], %[[T]])
// CHECK-NOT: fw.dealloc
// CHECK: return %[[T]]
// expected-remark @+1 {{allocated buffers: peak 2048 bytes before reuse, 1024 bytes after (0 reused, 1 updated in place)}}
func.func @in_place(%in: memref<256xf32, #fw.tier<host>>) -> memref<256xf32, #fw.tier<host>> {
  %t = fw.alloc() : memref<256xf32, #fw.tier<host>>
  %0 = fw.dispatch @neg(%in, %t) access([#fw.access<read>, #fw.access<write>]) : memref<256xf32, #fw.tier<host>>, memref<256xf32, #fw.tier<host>>
  %r = fw.alloc() : memref<256xf32, #fw.tier<host>>
  %1 = fw.dispatch @neg(%t, %r) access([#fw.access<read>, #fw.access<write>]) : memref<256xf32, #fw.tier<host>>, memref<256xf32, #fw.tier<host>>
  fw.dealloc %t : memref<256xf32, #fw.tier<host>>
  fw.wait %0, %1
  return %r : memref<256xf32, #fw.tier<host>>
}

/// negative_: not when the input is an argument (the caller's data), when it
/// is read again later, or when the kernel reads other elements than it
/// writes (a reversal; that output reuses a released buffer instead).
// CHECK-LABEL: func.func @negative_in_place
// CHECK: %[[A:.*]] = fw.alloc()
// CHECK: fw.dispatch @neg(%arg0, %[[A]])
// CHECK: %[[B:.*]] = fw.alloc()
// CHECK: fw.dispatch @neg(%[[A]], %[[B]])
// CHECK: fw.dispatch @neg(%[[A]], %arg1)
// CHECK-NOT: fw.alloc
// CHECK: fw.dispatch @rev(%[[B]], %[[A]])
// expected-remark @+1 {{allocated buffers: peak 2048 bytes before reuse, 2048 bytes after (1 reused, 0 updated in place)}}
func.func @negative_in_place(%in: memref<256xf32, #fw.tier<host>>, %out: memref<256xf32, #fw.tier<host>>) -> memref<256xf32, #fw.tier<host>> {
  %a = fw.alloc() : memref<256xf32, #fw.tier<host>>
  %0 = fw.dispatch @neg(%in, %a) access([#fw.access<read>, #fw.access<write>]) : memref<256xf32, #fw.tier<host>>, memref<256xf32, #fw.tier<host>>
  %b = fw.alloc() : memref<256xf32, #fw.tier<host>>
  %1 = fw.dispatch @neg(%a, %b) access([#fw.access<read>, #fw.access<write>]) : memref<256xf32, #fw.tier<host>>, memref<256xf32, #fw.tier<host>>
  %2 = fw.dispatch @neg(%a, %out) access([#fw.access<read>, #fw.access<write>]) : memref<256xf32, #fw.tier<host>>, memref<256xf32, #fw.tier<host>>
  fw.dealloc %a : memref<256xf32, #fw.tier<host>>
  %c = fw.alloc() : memref<256xf32, #fw.tier<host>>
  %3 = fw.dispatch @rev(%b, %c) access([#fw.access<read>, #fw.access<write>]) : memref<256xf32, #fw.tier<host>>, memref<256xf32, #fw.tier<host>>
  fw.dealloc %b : memref<256xf32, #fw.tier<host>>
  fw.wait %0, %1, %2, %3
  return %c : memref<256xf32, #fw.tier<host>>
}
