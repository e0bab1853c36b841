// fw-tune-variants for GPU targets: with candidates, the first variant of each
// GPU target of a hot executable gets siblings for that target with other
// knobs (a matmul: the GEMM's tiles; other kernels: threads per block); with a
// profile, the knobs measured fastest per target are kept, compared on the
// kernels' time on the device when the profile has it.
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=executables}, fw-tune-variants{candidates=3})" \
// RUN:   --remarks-filter="fw-autotune" --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=TUNE
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_gpu_candidates.json}, fw-outline-tasks, fw-tune-variants)" \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=USE
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_gpu_unfit.json}, fw-outline-tasks, fw-tune-variants)" \
// RUN:   2>&1 | FileCheck %s --check-prefix=UNFIT

// TUNE: Remark="task main_dispatch_0: 3 candidate sm_90 variants for the runtime to measure (defaults; thread_m=8,thread_n=8,tile_k=8,tile_m=128,tile_n=128; thread_m=2,thread_n=2,tile_k=32,tile_m=32,tile_n=32)"
// TUNE: Remark="task main_dispatch_0: 3 candidate gfx942 variants for the runtime to measure (defaults; thread_m=8,thread_n=8,tile_k=8,tile_m=128,tile_n=128; thread_m=2,thread_n=2,tile_k=32,tile_m=32,tile_n=32)"
// TUNE: Remark="task main_dispatch_0: 3 candidate variants for the runtime to measure (defaults; x86-64-v4 defaults; kc=256)"
// TUNE: Remark="task main_dispatch_2: 3 candidate sm_90 variants for the runtime to measure (defaults; block=512; block=128)"
// TUNE-LABEL: fw.executable @main_dispatch_0
// TUNE-SAME: fw.autotune
// TUNE: fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">) {
// TUNE: fw.variant @cpu_x86_64_v4 target(#fw.cpu<"x86-64-v4">) {
// TUNE: fw.variant @cpu_x86_64_v3_t2 target(#fw.cpu<"x86-64-v3">) attributes {config = {kc = 256 : i64}}
// TUNE: fw.variant @cuda_sm_90 target(#fw.cuda<"sm_90">) {
// TUNE: fw.variant @cuda_sm_90_t1 target(#fw.cuda<"sm_90">) attributes {config = {thread_m = 8 : i64, thread_n = 8 : i64, tile_k = 8 : i64, tile_m = 128 : i64, tile_n = 128 : i64}}
// TUNE: fw.variant @cuda_sm_90_t2 target(#fw.cuda<"sm_90">) attributes {config = {thread_m = 2 : i64, thread_n = 2 : i64, tile_k = 32 : i64, tile_m = 32 : i64, tile_n = 32 : i64}}
// TUNE: fw.variant @hip_gfx942 target(#fw.hip<"gfx942">) {
// TUNE: fw.variant @hip_gfx942_t1 target(#fw.hip<"gfx942">) attributes {config = {thread_m = 8 : i64
// TUNE: fw.variant @hip_gfx942_t2 target(#fw.hip<"gfx942">) attributes {config = {thread_m = 2 : i64
// The small elementwise kernel is cold: no candidates for any target.
// TUNE-LABEL: fw.executable @main_dispatch_1
// TUNE-NOT: fw.autotune
// TUNE-NOT: _t1
// TUNE-LABEL: fw.executable @main_dispatch_2
// TUNE: fw.variant @cuda_sm_90_t1 target(#fw.cuda<"sm_90">) attributes {config = {block = 512 : i64}}
// TUNE: fw.variant @cuda_sm_90_t2 target(#fw.cuda<"sm_90">) attributes {config = {block = 128 : i64}}
// TUNE: fw.variant @hip_gfx942_t1 target(#fw.hip<"gfx942">) attributes {config = {block = 512 : i64}}

// The matmul: the wall times of the sm_90 candidates are within noise of each
// other (launch and synchronization dominate); their device times are not.
// USE: Remark="task main_dispatch_0: 3 sm_90 variant(s) measured (defaults: 200.0 us; thread_m=2,thread_n=2,tile_k=32,tile_m=32,tile_n=32: 250.0 us; thread_m=8,thread_n=8,tile_k=8,tile_m=128,tile_n=128: 120.0 us; the runtime had chosen defaults)"
// USE: Remark="task main_dispatch_0 placed on gpu: measured cpu 4.00 ms, cuda 300.0 us"
// Without device times, the fastest run decides.
// USE: Remark="task main_dispatch_2: 3 gfx942 variant(s) measured (defaults: 50.0 us; block=128: 60.0 us; block=512: 40.0 us)"
// USE: Remark="task main_dispatch_0: kept the sm_90 variant with thread_m=8,thread_n=8,tile_k=8,tile_m=128,tile_n=128, the fastest of 3 measured"
// USE: Remark="task main_dispatch_2: kept the gfx942 variant with block=512, the fastest of 3 measured"
// USE-LABEL: fw.executable @main_dispatch_0
// USE-SAME: gpu_candidates = {sm_90 = 3 : i64}, gpu_config = {sm_90 = "thread_m=8,thread_n=8,tile_k=8,tile_m=128,tile_n=128"}
// USE: fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">) {
// USE: fw.variant @cuda_sm_90 target(#fw.cuda<"sm_90">) attributes {config = {thread_m = 8 : i64, thread_n = 8 : i64, tile_k = 8 : i64, tile_m = 128 : i64, tile_n = 128 : i64}}
// Not measured on gfx942: its defaults.
// USE-NEXT: builtin.module
// USE: fw.variant @hip_gfx942 target(#fw.hip<"gfx942">) {
// USE-LABEL: fw.executable @main_dispatch_1
// USE-LABEL: fw.executable @main_dispatch_2
// USE: fw.variant @cuda_sm_90 target(#fw.cuda<"sm_90">) {
// USE: fw.variant @hip_gfx942 target(#fw.hip<"gfx942">) attributes {config = {block = 512 : i64}}

// UNFIT: warning: the profile's fastest gfx942 variant of main_dispatch_2 (knobs 'block=96') does not fit: block=96 has 96 threads; gfx942 runs blocks of whole 64-thread warps, at most 1024; the target's defaults are kept
// UNFIT-LABEL: fw.executable @main_dispatch_2
// UNFIT: fw.variant @hip_gfx942 target(#fw.hip<"gfx942">) {

module attributes {fw.targets = [#fw.cpu<"x86-64-v3">, #fw.cuda<"sm_90">, #fw.hip<"gfx942">]} {
func.func @main(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>,
                %c: tensor<8x16xf32>, %d: tensor<?x64xf32>)
    -> (tensor<256x256xf32>, tensor<8x16xf32>, tensor<?x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
                      outs(%f0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %neg = arith.negf %c : tensor<8x16xf32>
  %exp = math.exp %d : tensor<?x64xf32>
  return %ab, %neg, %exp : tensor<256x256xf32>, tensor<8x16xf32>, tensor<?x64xf32>
}
}
