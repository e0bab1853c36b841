// RUN: %fw-opt %s -split-input-file -verify-diagnostics

func.func @task_region_args(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fw.task' op expects 1 region arguments (one per operand), got 0}}
  %r = fw.task(%a) : (tensor<4xf32>) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    fw.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @task_region_arg_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fw.task' op region argument #0 has type 'tensor<4xf16>' but operand #0 has type 'tensor<4xf32>'}}
  %r = fw.task(%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf16>):
    %e = tensor.empty() : tensor<4xf32>
    fw.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @task_yield_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fw.task' op yields 2 values but has 1 results}}
  %r = fw.task(%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    fw.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @task_yield_type(%a: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fw.task' op yield operand #0 has type 'tensor<4xf32>' but result #0 has type 'tensor<4xi32>'}}
  %r = fw.task(%a) : (tensor<4xf32>) -> tensor<4xi32> {
  ^bb0(%x: tensor<4xf32>):
    fw.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xi32>
}

// -----

func.func @task_result_dims(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'fw.task' op expects 1 result dims (one per dynamic dimension), got 0}}
  %r = fw.task(%a) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%x: tensor<?xf32>):
    fw.yield %x : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// expected-error @+1 {{'fw.executable' op has 2 bindings but 1 access modes}}
fw.executable @bindings_access attributes {
    access = [#fw.access<read>], bindings = [tensor<4xf32>, tensor<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

// -----

// expected-error @+1 {{'fw.executable' op binding #0 must be a ranked tensor type}}
fw.executable @binding_type attributes {
    access = [#fw.access<read>], bindings = [memref<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

// -----

// expected-error @+1 {{'fw.executable' op check #2 has an empty message}}
fw.executable @empty_check attributes {
    access = [#fw.access<read>], bindings = [tensor<4xf32>], checks = ["ok", ""]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

// -----

// expected-error @+1 {{'fw.executable' op may only contain fw.variant ops, found func.func}}
fw.executable @stray_op attributes {access = [], bindings = []} {
  func.func private @f()
}

// -----

// expected-error @+1 {{'fw.executable' op has two variants for target #fw.cpu<"x86-64-v3"> with the same config}}
fw.executable @duplicate_target attributes {access = [], bindings = []} {
  fw.variant @a target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
  fw.variant @b target(#fw.cpu<"x86-64-v3">) attributes {config = {}} {
    builtin.module {}
  }
  fw.variant @c target(#fw.cpu<"x86-64-v3">) attributes {config = {kc = 128 : i64}} {
    builtin.module {}
  }
  fw.variant @d target(#fw.cpu<"x86-64-v3">) attributes {config = {kc = 128 : i64}} {
    builtin.module {}
  }
}

// -----

fw.executable @bad_knob attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op config entry 'tile' must be one of block, kc, mc, min_elements, mr, nr, thread_m, thread_n, tile_k, tile_m, tile_n with an i64 value}}
  fw.variant @a target(#fw.cpu<"x86-64-v3">) attributes {config = {tile = 4 : i64}} {
    builtin.module {}
  }
}

// -----

fw.executable @knob_not_i64 attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op config entry 'mr' must be one of block, kc, mc, min_elements, mr, nr, thread_m, thread_n, tile_k, tile_m, tile_n with an i64 value}}
  fw.variant @a target(#fw.cpu<"x86-64-v3">) attributes {config = {mr = "4"}} {
    builtin.module {}
  }
}

// -----

fw.executable @tile_too_big attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op config does not fit x86-64-v3: a 12x32 register tile needs 48 vector registers; x86-64-v3 has 16}}
  fw.variant @a target(#fw.cpu<"x86-64-v3">) attributes {config = {mr = 12 : i64, nr = 32 : i64}} {
    builtin.module {}
  }
}

// -----

fw.executable @nr_not_lanes attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op config does not fit x86-64-v3: nr=12 is not a multiple of the 8 lanes of a 256-bit vector}}
  fw.variant @a target(#fw.cpu<"x86-64-v3">) attributes {config = {nr = 12 : i64}} {
    builtin.module {}
  }
}

// -----

fw.executable @knob_range attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op config does not fit x86-64-v3: kc=0 is outside [8, 4096]}}
  fw.variant @a target(#fw.cpu<"x86-64-v3">) attributes {config = {kc = 0 : i64}} {
    builtin.module {}
  }
}

// -----

fw.executable @cpu_knob_on_gpu attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op config does not fit sm_90: the knobs kc, mc, min_elements, mr and nr are for CPU targets; sm_90 takes block, thread_m, thread_n, tile_k, tile_m and tile_n}}
  fw.variant @a target(#fw.cuda<"sm_90">) attributes {config = {mr = 4 : i64}} {
    builtin.module {}
  }
}

// -----

fw.executable @gpu_knob_on_cpu attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op config does not fit x86-64-v3: the knobs block, thread_m, thread_n, tile_k, tile_m and tile_n are for GPU targets; x86-64-v3 takes kc, mc, min_elements, mr and nr}}
  fw.variant @a target(#fw.cpu<"x86-64-v3">) attributes {config = {block = 512 : i64}} {
    builtin.module {}
  }
}

// -----

fw.executable @block_not_warps attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op config does not fit gfx942: block=96 has 96 threads; gfx942 runs blocks of whole 64-thread warps, at most 1024}}
  fw.variant @a target(#fw.hip<"gfx942">) attributes {config = {block = 96 : i64}} {
    builtin.module {}
  }
}

// -----

fw.executable @gemm_tile_uneven attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op config does not fit sm_90: the 64x48x16 GEMM tile with 4x5 per thread: the thread's micro-tile does not divide the block's}}
  fw.variant @a target(#fw.cuda<"sm_90">) attributes {config = {tile_n = 48 : i64, thread_n = 5 : i64}} {
    builtin.module {}
  }
}

// -----

fw.executable @gemm_tile_staging attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op config does not fit sm_90: the 64x64x2 GEMM tile with 4x4 per thread: its 256 threads cannot share the staging of the 64x2 and 2x64 slices evenly}}
  fw.variant @a target(#fw.cuda<"sm_90">) attributes {config = {tile_k = 2 : i64}} {
    builtin.module {}
  }
}

// -----

fw.executable @gemm_tile_threads attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op config does not fit sm_90: the 256x256x16 GEMM tile with 4x4 per thread has 4096 threads; sm_90 runs blocks of whole 32-thread warps, at most 1024}}
  fw.variant @a target(#fw.cuda<"sm_90">) attributes {config = {tile_m = 256 : i64, tile_n = 256 : i64}} {
    builtin.module {}
  }
}

// -----

// expected-error @+1 {{'fw.executable' op must contain at least one fw.variant}}
fw.executable @empty attributes {access = [], bindings = []} {
}

// -----

fw.executable @bad_target attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op target must be an fw target attribute (#fw.cpu, #fw.cuda or #fw.hip), got "x86"}}
  fw.variant @cpu target("x86") {
    builtin.module {}
  }
}

// -----

fw.executable @no_module attributes {access = [], bindings = []} {
  // expected-error @+1 {{'fw.variant' op must contain exactly one builtin.module}}
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
  }
}

// -----

// expected-error @+1 {{unknown CPU architecture 'pentium'; expected one of: x86-64, x86-64-v2, x86-64-v3, x86-64-v4}}
func.func private @f() attributes {t = #fw.cpu<"pentium">}

// -----

// expected-error @+1 {{unknown CUDA architecture 'sm_1'; expected one of: sm_80, sm_90}}
func.func private @f() attributes {t = #fw.cuda<"sm_1">}

// -----

// expected-error @+1 {{unknown HIP architecture 'gfx1'; expected one of: gfx90a, gfx942}}
func.func private @f() attributes {t = #fw.hip<"gfx1">}

// -----

fw.executable @exe attributes {
    access = [#fw.access<read>, #fw.access<write>],
    bindings = [tensor<?x4xf32>, tensor<?x4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

func.func @invoke_dims(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'fw.invoke' op expects 1 result dims (one per dynamic dimension), got 0}}
  %r = fw.invoke @exe(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

func.func @invoke_unknown(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fw.invoke' op refers to unknown executable @nowhere}}
  %r = fw.invoke @nowhere(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

fw.executable @exe attributes {
    access = [#fw.access<read>, #fw.access<write>],
    bindings = [tensor<4xf32>, tensor<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

func.func @invoke_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fw.invoke' op has 2 operands and 1 results but @exe has 2 bindings}}
  %r = fw.invoke @exe(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

fw.executable @exe attributes {
    access = [#fw.access<read>, #fw.access<write>],
    bindings = [tensor<4xf32>, tensor<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

func.func @invoke_type(%a: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'fw.invoke' op operand #0 of type 'tensor<8xf32>' is not compatible with binding #0 ('tensor<4xf32>') of @exe}}
  %r = fw.invoke @exe(%a) : (tensor<8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

fw.executable @exe attributes {
    access = [#fw.access<read>, #fw.access<write>],
    bindings = [tensor<4xf32>, tensor<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

func.func @invoke_result_type(%a: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'fw.invoke' op result #0 of type 'tensor<4xi32>' is not compatible with binding #1 ('tensor<4xf32>') of @exe}}
  %r = fw.invoke @exe(%a) : (tensor<4xf32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

func.func @alloc_space() {
  // expected-error @+1 {{'fw.alloc' op expects a memref in an #fw.tier memory space, got 'memref<4xf32>'}}
  %b = fw.alloc() : memref<4xf32>
  return
}

// -----

func.func @alloc_sizes(%d: index) {
  // expected-error @+1 {{'fw.alloc' op expects 0 dynamic sizes (one per dynamic dimension), got 1}}
  %b = fw.alloc(%d) : memref<4xf32, #fw.tier<host>>
  return
}

// -----

func.func @alloc_layout() {
  // expected-error @+1 {{'fw.alloc' op expects an identity layout, got 'memref<4xf32, strided<[2]>, #fw.tier<host>>'}}
  %b = fw.alloc() : memref<4xf32, strided<[2]>, #fw.tier<host>>
  return
}

// -----

func.func @dealloc_space(%b: memref<4xf32>) {
  // expected-error @+1 {{'fw.dealloc' op expects a memref in an #fw.tier memory space, got 'memref<4xf32>'}}
  fw.dealloc %b : memref<4xf32>
  return
}

// -----

func.func @prefetch_space(%b: memref<4xf32, 1>) {
  // expected-error @+1 {{'fw.prefetch' op expects a memref in an #fw.tier memory space, got 'memref<4xf32, 1>'}}
  fw.prefetch %b : memref<4xf32, 1> to <device>
  return
}

// -----

fw.executable @exe attributes {
    access = [#fw.access<read>, #fw.access<write>],
    bindings = [tensor<4xf32>, tensor<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

func.func @dispatch_access_count(%b: memref<4xf32, #fw.tier<host>>) {
  // expected-error @+1 {{'fw.dispatch' op has 2 buffers but 1 access modes}}
  %t = fw.dispatch @exe(%b, %b) access([#fw.access<read>]) : memref<4xf32, #fw.tier<host>>, memref<4xf32, #fw.tier<host>>
  return
}

// -----

fw.executable @exe attributes {
    access = [#fw.access<read>, #fw.access<write>],
    bindings = [tensor<4xf32>, tensor<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

func.func @dispatch_space(%b: memref<4xf32>) {
  // expected-error @+1 {{'fw.dispatch' op expects a memref in an #fw.tier memory space, got 'memref<4xf32>'}}
  %t = fw.dispatch @exe(%b, %b) access([#fw.access<read>, #fw.access<write>]) : memref<4xf32>, memref<4xf32>
  return
}

// -----

func.func @dispatch_unknown(%b: memref<4xf32, #fw.tier<host>>) {
  // expected-error @+1 {{'fw.dispatch' op refers to unknown executable @nowhere}}
  %t = fw.dispatch @nowhere(%b) access([#fw.access<read>]) : memref<4xf32, #fw.tier<host>>
  return
}

// -----

fw.executable @exe attributes {
    access = [#fw.access<read>, #fw.access<write>],
    bindings = [tensor<4xf32>, tensor<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

func.func @dispatch_count(%b: memref<4xf32, #fw.tier<host>>) {
  // expected-error @+1 {{'fw.dispatch' op has 1 buffers but @exe has 2 bindings}}
  %t = fw.dispatch @exe(%b) access([#fw.access<read>]) : memref<4xf32, #fw.tier<host>>
  return
}

// -----

fw.executable @exe attributes {
    access = [#fw.access<read>, #fw.access<write>],
    bindings = [tensor<4xf32>, tensor<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

func.func @dispatch_access(%b: memref<4xf32, #fw.tier<host>>) {
  // expected-error @+1 {{'fw.dispatch' op access mode of buffer #1 (#fw.access<read>) differs from binding #1 (#fw.access<write>) of @exe}}
  %t = fw.dispatch @exe(%b, %b) access([#fw.access<read>, #fw.access<read>]) : memref<4xf32, #fw.tier<host>>, memref<4xf32, #fw.tier<host>>
  return
}

// -----

fw.executable @exe attributes {
    access = [#fw.access<read>, #fw.access<write>],
    bindings = [tensor<4xf32>, tensor<4xf32>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64-v3">) {
    builtin.module {}
  }
}

func.func @dispatch_type(%b: memref<4xf32, #fw.tier<host>>, %c: memref<5xf32, #fw.tier<host>>) {
  // expected-error @+1 {{'fw.dispatch' op buffer #1 of type 'memref<5xf32, #fw.tier<host>>' is not compatible with binding #1 ('tensor<4xf32>') of @exe}}
  %t = fw.dispatch @exe(%b, %c) access([#fw.access<read>, #fw.access<write>]) : memref<4xf32, #fw.tier<host>>, memref<5xf32, #fw.tier<host>>
  return
}

// -----

func.func @wait_empty() {
  // expected-error @+1 {{'fw.wait' op requires at least one token}}
  fw.wait
  return
}

// -----

func.func @assert_message(%c: i1) {
  // expected-error @+1 {{'fw.assert' op requires a non-empty message}}
  fw.assert %c, ""
  return
}

// -----

func.func @assert_message_nul(%c: i1) {
  // expected-error @+1 {{'fw.assert' op has a message with a NUL byte; it is a C string where it fails the call}}
  fw.assert %c, "a\00b"
  return
}

// -----

func.func @flops_terms_and_flops(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?xf32>
  // expected-error @+1 {{has both 'flops' and 'flops_terms'; the terms are the whole estimate}}
  %r = fw.task(%a) : (tensor<?xf32>) -> tensor<?xf32> dims(%d) attributes {flops = 1 : i64, flops_terms = [array<i64: 1, 0, 0>]} {
  ^bb0(%x: tensor<?xf32>):
    fw.yield %x : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @flops_terms_not_array(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?xf32>
  // expected-error @+1 {{'flops_terms' #0 must be an array<i64: coefficient, binding, dim, ...>}}
  %r = fw.task(%a) : (tensor<?xf32>) -> tensor<?xf32> dims(%d) attributes {flops_terms = [1]} {
  ^bb0(%x: tensor<?xf32>):
    fw.yield %x : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @flops_terms_half_pair(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?xf32>
  // expected-error @+1 {{'flops_terms' #1 must hold a coefficient and (binding, dim) pairs}}
  %r = fw.task(%a) : (tensor<?xf32>) -> tensor<?xf32> dims(%d) attributes {flops_terms = [array<i64: 2, 0, 0>, array<i64: 1, 0>]} {
  ^bb0(%x: tensor<?xf32>):
    fw.yield %x : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @flops_terms_coefficient(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?xf32>
  // expected-error @+1 {{'flops_terms' #0 has coefficient 0; it must be at least 1}}
  %r = fw.task(%a) : (tensor<?xf32>) -> tensor<?xf32> dims(%d) attributes {flops_terms = [array<i64: 0, 0, 0>]} {
  ^bb0(%x: tensor<?xf32>):
    fw.yield %x : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @flops_terms_factors(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?xf32>
  // expected-error @+1 {{'flops_terms' #0 multiplies 9 dims; at most 8 are supported}}
  %r = fw.task(%a) : (tensor<?xf32>) -> tensor<?xf32> dims(%d) attributes {flops_terms = [array<i64: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>]} {
  ^bb0(%x: tensor<?xf32>):
    fw.yield %x : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @flops_terms_binding(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?xf32>
  // expected-error @+1 {{'flops_terms' #0 names binding 2 of 2}}
  %r = fw.task(%a) : (tensor<?xf32>) -> tensor<?xf32> dims(%d) attributes {flops_terms = [array<i64: 1, 2, 0>]} {
  ^bb0(%x: tensor<?xf32>):
    fw.yield %x : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// expected-error @+1 {{'flops_terms' #0 names dim 1 of binding 0 ('tensor<?x4xf32>'), which is not a dynamic dim}}
fw.executable @flops_terms_static_dim attributes {access = [#fw.access<read>, #fw.access<write>],
    bindings = [tensor<?x4xf32>, tensor<?x4xf32>], flops_terms = [array<i64: 2, 0, 1>]} {
  fw.variant @cpu target(#fw.cpu<"x86-64">) {
    builtin.module {}
  }
}
