// A GPU worker keeps FW_GPU_PIPELINE tasks launched at a time (default 2): while the GPU
// runs one kernel the next waits on the worker's queue. Through the stand-in driver of
// runtime/test/fake_cuda.c, whose async launches each take 10 ms of real time on their
// stream; its log says, per launch, how many kernels were still unfinished on the stream
// ("behind N").
// REQUIRES: ptxas
// RUN: %fwc %s --targets=cpu,sm_90 --module-name=pipe -o %t.fwb
// RUN: rm -f %t.2.log %t.1.log %t.3.log
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async FW_FAKE_CUDA_KERNEL_US=10000 FW_FAKE_CUDA_LOG=%t.2.log %fw-run %t.fwb --devices=cuda --benchmark=2 --trace=%t.json --print-max-elements=0 > /dev/null
// RUN: %python %S/Inputs/launches_behind.py %t.2.log | FileCheck %s --check-prefix=TWO
// TWO: launches 12, behind another: {{[1-9][0-9]*}}, most behind: 1
// The trace's spans of the GPU worker follow one another: a kernel queued behind another
// starts when that one is seen to end.
// RUN: %python -c "import json,sys; ev=[e for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('ph')=='X' and e['name'].startswith('pipe.')]; tids={e['tid'] for e in ev}; s=sorted((e['ts'],e['ts']+e['dur']) for e in ev); print('gpu tracks', len(tids), 'spans', len(s), 'overlapping', sum(b[0] < a[1] - 0.01 for a, b in zip(s, s[1:])))" %t.json | FileCheck %s --check-prefix=TRACE
// TRACE: gpu tracks 1 spans 12 overlapping 0
// One at a time, as before pipelining; three at a time.
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async FW_FAKE_CUDA_KERNEL_US=10000 FW_FAKE_CUDA_LOG=%t.1.log FW_GPU_PIPELINE=1 %fw-run %t.fwb --devices=cuda --benchmark=2 --print-max-elements=0 > /dev/null
// RUN: %python %S/Inputs/launches_behind.py %t.1.log | FileCheck %s --check-prefix=ONE
// ONE: launches 12, behind another: 0, most behind: 0
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=async FW_FAKE_CUDA_KERNEL_US=10000 FW_FAKE_CUDA_LOG=%t.3.log FW_GPU_PIPELINE=3 %fw-run %t.fwb --devices=cuda --benchmark=2 --print-max-elements=0 > /dev/null
// RUN: %python %S/Inputs/launches_behind.py %t.3.log | FileCheck %s --check-prefix=THREE
// THREE: launches 12, behind another: {{[1-9][0-9]*}}, most behind: 2
// RUN: env FW_GPU_PIPELINE=0 not %fw-run %t.fwb --print-max-elements=0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env FW_GPU_PIPELINE=many not %fw-run %t.fwb --print-max-elements=0 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: FW_GPU_PIPELINE='{{0|many}}': expected a number from 1 to 8

// Four independent kernels a call.
func.func @main(%a: tensor<4096xf32>, %b: tensor<4096xf32>)
    -> (tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>) {
  %r1 = arith.addf %a, %b : tensor<4096xf32>
  %r2 = arith.mulf %a, %b : tensor<4096xf32>
  %r3 = arith.subf %a, %b : tensor<4096xf32>
  %r4 = arith.maximumf %a, %b : tensor<4096xf32>
  return %r1, %r2, %r3, %r4
      : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>
}
