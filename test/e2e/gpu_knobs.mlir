// The GPU kernels autotuning chooses among (fwc --autotune: GEMM tiles for a matmul,
// threads per block for row kernels), run on the CPU through the GPU mapping on an
// emulated grid (fwc --test-gpu-mapping-on-cpu): every candidate computes the same
// results, on shapes with partial tiles.
// RUN: %fwc %s --test-gpu-mapping-on-cpu --test-gpu-knobs=thread_m=8,thread_n=8,tile_k=8,tile_m=128,tile_n=128 -o %t.g0.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.g0.fwb --function=matmul_dynamic --case=matmul_dynamic --arg-shapes="77x128;128x32" --tmp=%t
// RUN: %fwc %s --test-gpu-mapping-on-cpu --test-gpu-knobs=thread_m=2,thread_n=2,tile_k=32,tile_m=32,tile_n=32 -o %t.g1.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.g1.fwb --function=matmul_dynamic --case=matmul_dynamic --arg-shapes="77x128;128x32" --tmp=%t
// RUN: %fwc %s --test-gpu-mapping-on-cpu --test-gpu-knobs=thread_m=8,thread_n=4,tile_k=16,tile_m=128,tile_n=64 -o %t.g2.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.g2.fwb --function=matmul_dynamic --case=matmul_dynamic --arg-shapes="77x128;128x32" --tmp=%t
// RUN: %fwc %s --test-gpu-mapping-on-cpu --test-gpu-knobs=thread_m=4,thread_n=4,tile_k=32,tile_m=64,tile_n=64 -o %t.g3.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.g3.fwb --function=matmul_dynamic --case=matmul_dynamic --arg-shapes="77x128;128x32" --tmp=%t
// Knobs outside their range are an error, not a crash or a nonsense kernel.
// RUN: not %fwc %s --test-gpu-mapping-on-cpu --test-gpu-knobs=thread_m=0 -o %t.bad.fwb 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: invalid GPU knobs 'thread_m=0': thread_m=0 is outside [1, 16]
// RUN: not %fwc %s --test-gpu-mapping-on-cpu --test-gpu-knobs=block=0 -o %t.bad.fwb 2>&1 | FileCheck %s --check-prefix=BADBLOCK
// BADBLOCK: block=0 is outside [32, 1024]
// RUN: %fwc %s --test-gpu-mapping-on-cpu --test-gpu-knobs=block=512 -o %t.b0.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.b0.fwb --function=softmax --case=softmax --arg-shapes="31x128" --tmp=%t
// RUN: %fwc %s --test-gpu-mapping-on-cpu --test-gpu-knobs=block=128 -o %t.b1.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.b1.fwb --function=softmax --case=softmax --arg-shapes="31x128" --tmp=%t
// RUN: %fwc %s --test-gpu-mapping-on-cpu --test-gpu-knobs=block=1024 -o %t.b2.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.b2.fwb --function=softmax --case=softmax --arg-shapes="31x128" --tmp=%t

func.func @matmul_dynamic(%a: tensor<?x128xf32>, %b: tensor<128x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x128xf32>
  %init = tensor.empty(%m) : tensor<?x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<?x32xf32>) -> tensor<?x32xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x128xf32>, tensor<128x32xf32>)
                     outs(%acc : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %c : tensor<?x32xf32>
}

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @softmax(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x128xf32>

  %m0 = tensor.empty(%n) : tensor<?xf32>
  %m1 = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x128xf32>) outs(%m1 : tensor<?xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.maximumf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>

  %e0 = tensor.empty(%n) : tensor<?x128xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<?x128xf32>, tensor<?xf32>) outs(%e0 : tensor<?x128xf32>) {
  ^bb0(%v: f32, %mx: f32, %o: f32):
    %d = arith.subf %v, %mx : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x128xf32>

  %s0 = tensor.empty(%n) : tensor<?xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<?x128xf32>) outs(%s1 : tensor<?xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>

  %o0 = tensor.empty(%n) : tensor<?x128xf32>
  %out = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<?x128xf32>, tensor<?xf32>) outs(%o0 : tensor<?x128xf32>) {
  ^bb0(%e: f32, %s: f32, %o: f32):
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  } -> tensor<?x128xf32>
  return %out : tensor<?x128xf32>
}
