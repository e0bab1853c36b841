// RUN: %fw-opt %s --split-input-file --fw-kernel-error-word --verify-diagnostics | FileCheck %s

/// The executable's distinct messages are numbered in order of appearance and
/// listed in `checks`; each variant's kernel takes its error word after its
/// bindings, and a failed check k of n is an atomic maximum of n + 1 - k there
/// (the first check that failed wins: "first" leaves 2, "second" 1).
// CHECK-LABEL: fw.executable @e
// CHECK-SAME: checks = ["first (a.mlir:3)", "second (a.mlir:4)"]
// CHECK: fw.variant @cpu
// CHECK: func.func @e(%{{.*}}: memref<4xi32>, %{{.*}}: memref<4xf32>, %[[WORD:.*]]: memref<i32>) attributes {fw.error_word}
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[FAILED:.*]] = arith.xori %{{.*}}, %[[TRUE]] : i1
// CHECK: scf.if %[[FAILED]] {
// CHECK: %[[FIRST:.*]] = arith.constant 2 : i32
// CHECK: memref.atomic_rmw maxu %[[FIRST]], %[[WORD]][] : (i32, memref<i32>) -> i32
// CHECK: arith.constant 1 : i32
// CHECK: memref.atomic_rmw maxu
// CHECK: arith.constant 2 : i32
// CHECK: memref.atomic_rmw maxu
// CHECK-NOT: fw.assert
// CHECK: fw.variant @sm_90
// CHECK: func.func @e(%{{.*}}: memref<4xi32>, %{{.*}}: memref<4xf32>, %[[WORD2:.*]]: memref<i32>) attributes {fw.error_word}
// CHECK: arith.constant 1 : i32
// CHECK: memref.atomic_rmw maxu %{{.*}}, %[[WORD2]][]
// CHECK-NOT: fw.assert
// An executable without checks is left as it is.
// CHECK-LABEL: fw.executable @plain
// CHECK-NOT: checks
// CHECK: func.func @plain(%{{.*}}: memref<4xf32>) {
module {
  fw.executable @e attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<4xi32>, tensor<4xf32>]} {
    fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
      builtin.module {
        func.func @e(%a: memref<4xi32>, %b: memref<4xf32>) {
          %c0 = arith.constant 0 : index
          %c4 = arith.constant 4 : i32
          %x = memref.load %a[%c0] : memref<4xi32>
          %ok = arith.cmpi ult, %x, %c4 : i32
          fw.assert %ok, "first (a.mlir:3)"
          %pos = arith.cmpi sgt, %x, %c4 : i32
          fw.assert %pos, "second (a.mlir:4)"
          fw.assert %ok, "first (a.mlir:3)"
          return
        }
      }
    }
    fw.variant @sm_90 target(#fw.cuda<"sm_90">) {
      builtin.module {
        func.func @e(%a: memref<4xi32>, %b: memref<4xf32>) {
          %c0 = arith.constant 0 : index
          %c4 = arith.constant 4 : i32
          %x = memref.load %a[%c0] : memref<4xi32>
          %pos = arith.cmpi sgt, %x, %c4 : i32
          fw.assert %pos, "second (a.mlir:4)"
          return
        }
      }
    }
  }
  fw.executable @plain attributes {access = [#fw.access<write>], bindings = [tensor<4xf32>]} {
    fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
      builtin.module {
        func.func @plain(%b: memref<4xf32>) {
          return
        }
      }
    }
  }
}

// -----

/// A CPU kernel that allocates buffers of its own gets the error word and the
/// out-of-memory check, after the executable's others (so it records 1); a
/// GPU kernel's allocations are its private memory, left alone.
// CHECK-LABEL: fw.executable @temp
// CHECK-SAME: checks = ["first (a.mlir:3)", "out of memory: the kernel could not allocate a buffer of its own"]
// CHECK: fw.variant @cpu
// CHECK: func.func @temp(%{{.*}}: memref<?xf32>, %[[WORD:.*]]: memref<i32>) attributes {fw.allocation_check = 1 : i32, fw.error_word}
// CHECK: arith.constant 2 : i32
// CHECK: memref.atomic_rmw maxu %{{.*}}, %[[WORD]][]
// CHECK: fw.variant @sm_90
// CHECK: func.func @temp(%{{.*}}: memref<?xf32>, %{{.*}}: memref<i32>) attributes {fw.error_word} {
/// Without assertions, the check is the only one.
// CHECK-LABEL: fw.executable @only
// CHECK-SAME: checks = ["out of memory: the kernel could not allocate a buffer of its own"]
// CHECK: func.func @only(%{{.*}}: memref<?xf32>, %{{.*}}: memref<i32>) attributes {fw.allocation_check = 1 : i32, fw.error_word}
/// A CPU kernel with a contraction gets it too: fw-cpu-matmul packs panels
/// into buffers it allocates. An elementwise one does not.
// CHECK-LABEL: fw.executable @contract
// CHECK-SAME: checks = ["out of memory: the kernel could not allocate a buffer of its own"]
// CHECK: func.func @contract(%{{.*}}: memref<4x4xf32>, %{{.*}}: memref<4x4xf32>, %{{.*}}: memref<i32>) attributes {fw.allocation_check = 1 : i32, fw.error_word}
// CHECK-LABEL: fw.executable @scale
// CHECK-NOT: checks
// CHECK: func.func @scale(%{{.*}}: memref<4xf32>) {
/// negative_: a GPU kernel alone that allocates gets nothing.
// CHECK-LABEL: fw.executable @gpu_only
// CHECK-NOT: checks
// CHECK: func.func @gpu_only(%{{.*}}: memref<?xf32>) {
module {
  fw.executable @temp attributes {access = [#fw.access<write>], bindings = [tensor<?xf32>]} {
    fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
      builtin.module {
        func.func @temp(%b: memref<?xf32>) {
          %c0 = arith.constant 0 : index
          %n = memref.dim %b, %c0 : memref<?xf32>
          %t = memref.alloc(%n) : memref<?xf32>
          %ok = arith.cmpi ugt, %n, %c0 : index
          fw.assert %ok, "first (a.mlir:3)"
          memref.dealloc %t : memref<?xf32>
          return
        }
      }
    }
    fw.variant @sm_90 target(#fw.cuda<"sm_90">) {
      builtin.module {
        func.func @temp(%b: memref<?xf32>) {
          %c0 = arith.constant 0 : index
          %n = memref.dim %b, %c0 : memref<?xf32>
          %ok = arith.cmpi ugt, %n, %c0 : index
          fw.assert %ok, "first (a.mlir:3)"
          %t = memref.alloc() : memref<4xf32>
          memref.dealloc %t : memref<4xf32>
          return
        }
      }
    }
  }
  fw.executable @only attributes {access = [#fw.access<write>], bindings = [tensor<?xf32>]} {
    fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
      builtin.module {
        func.func @only(%b: memref<?xf32>) {
          %t = memref.alloc() : memref<4xf32>
          memref.dealloc %t : memref<4xf32>
          return
        }
      }
    }
  }
  fw.executable @contract attributes {access = [#fw.access<read>, #fw.access<write>], bindings = [tensor<4x4xf32>, tensor<4x4xf32>]} {
    fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
      builtin.module {
        func.func @contract(%a: memref<4x4xf32>, %c: memref<4x4xf32>) {
          linalg.matmul ins(%a, %a : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
          return
        }
      }
    }
  }
  fw.executable @scale attributes {access = [#fw.access<write>], bindings = [tensor<4xf32>]} {
    fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
      builtin.module {
        func.func @scale(%b: memref<4xf32>) {
          %two = arith.constant 2.0 : f32
          linalg.fill ins(%two : f32) outs(%b : memref<4xf32>)
          return
        }
      }
    }
  }
  fw.executable @gpu_only attributes {access = [#fw.access<write>], bindings = [tensor<?xf32>]} {
    fw.variant @sm_90 target(#fw.cuda<"sm_90">) {
      builtin.module {
        func.func @gpu_only(%b: memref<?xf32>) {
          %t = memref.alloc() : memref<4xf32>
          memref.dealloc %t : memref<4xf32>
          return
        }
      }
    }
  }
}

// -----

/// An assertion outside the kernel cannot reach the error word.
module {
  fw.executable @helper attributes {access = [#fw.access<write>], bindings = [tensor<4xf32>]} {
    fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
      builtin.module {
        func.func private @other(%ok: i1) {
          // expected-error @+1 {{is outside the kernel of its variant; only the kernel gets the error word}}
          fw.assert %ok, "lost"
          return
        }
        func.func @helper(%b: memref<4xf32>) {
          return
        }
      }
    }
  }
}
