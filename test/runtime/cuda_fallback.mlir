// The runtime's CUDA path on a machine without a GPU, through the stand-in driver of
// runtime/test/fake_cuda.c (libcuda.so.1 whose memory is host memory and whose launches
// fail like a faulting kernel): the GPU is found and becomes a worker with its own memory
// node; each kernel's image is chosen for its architecture and loaded; inputs are copied
// to the device; a failed launch reruns the task on the CPU, and after three failures in
// a row the device is taken out of service. The results must equal a CPU-only run.
// REQUIRES: ptxas
// RUN: %fwc %s --targets=cpu,sm_80,sm_90 -o %t.fwb
// RUN: %fw-run %t.fwb --devices=cpu --output=@%t.cpu0.npy --output=@%t.cpu1.npy --stats | FileCheck %s --check-prefix=CPU
// CPU-NOT: cuda
// CPU-NOT: GPU failures
//
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir %fw-run --list-devices | FileCheck %s --check-prefix=LIST
// LIST: cuda: Fake GPU, sm_90, 4 compute units, 1.0 GiB
//
// All three calls of --benchmark=2 send both GPU kernels to the GPU until it is lost.
// RUN: rm -f %t.log
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LOG=%t.log %fw-run %t.fwb --devices=cuda --benchmark=2 --stats --trace=%t.json --output=@%t.gpu0.npy --output=@%t.gpu1.npy | FileCheck %s --check-prefix=RUNGPU
// RUNGPU: stats: scheduler heft, 9 tasks submitted, 9 executed, 0 failed
// RUNGPU-NEXT: GPU failures: 3 tasks rerun elsewhere, 1 device taken out of service
// RUNGPU: device cuda:0 Fake GPU: 1 worker, 0 tasks
// RUNGPU: moved host -> device:
// RUN: %python -c "import numpy as np,sys; a=sys.argv[1:]; ok=all(np.array_equal(np.load(a[i]),np.load(a[i+2])) for i in (0,1)); print('same' if ok else 'different')" %t.cpu0.npy %t.cpu1.npy %t.gpu0.npy %t.gpu1.npy | FileCheck %s --check-prefix=SAME
// SAME: same
// RUN: FileCheck %s --check-prefix=LOG < %t.log
// LOG: load cubin
// LOG: copy to device 12288
// LOG: launch fb_dispatch_0 grid {{[0-9]+}} block 256
// LOG-NOT: load ptx
// RUN: %python -c "import json,sys; ev=json.load(open(sys.argv[1]))['traceEvents']; print(sorted({e['name'].split(':')[0] for e in ev if e.get('ph')=='X' and 'elsewhere' in e['name']}))" %t.json | FileCheck %s --check-prefix=TRACE
// TRACE: ['failed, runs elsewhere']
//
// A GPU newer than every cubin loads the PTX of the newest architecture not above it.
// RUN: rm -f %t.ptx.log
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LOG=%t.ptx.log FW_FAKE_CUDA_ARCH=100 %fw-run %t.fwb --devices=cuda --print-max-elements=0 > /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx.log
// PTX-NOT: load cubin
// PTX: load ptx sm_90
// A driver that refuses the exact cubin gets that variant's PTX instead.
// RUN: rm -f %t.refuse.log
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LOG=%t.refuse.log FW_FAKE_CUDA_CUBIN=refuse %fw-run %t.fwb --devices=cuda --print-max-elements=0 > /dev/null
// RUN: FileCheck %s --check-prefix=REFUSE < %t.refuse.log
// REFUSE: refuse cubin
// REFUSE-NEXT: load ptx sm_90
// A GPU older than every image runs nothing: no load, no launch, every task on the CPU.
// RUN: rm -f %t.old.log && touch %t.old.log
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LOG=%t.old.log FW_FAKE_CUDA_ARCH=75 %fw-run %t.fwb --devices=cuda --stats --print-max-elements=0 | FileCheck %s --check-prefix=OLD
// OLD-NOT: GPU failures
// OLD: device cuda:0 Fake GPU: 1 worker, 0 tasks
// RUN: count 0 < %t.old.log
//
// RUN: not %fw-run %t.fwb --devices=cpu,tpu 2>&1 | FileCheck %s --check-prefix=BADKIND
// BADKIND: fw-run: error: unknown device kind 'tpu' in the device list 'cpu,tpu' (FW_DEVICES): expected a comma-separated list of cpu, cuda, hip
// RUN: env FW_DEVICES=, not %fw-run %t.fwb 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: fw-run: error: unknown device kind '' in the device list ',' (FW_DEVICES)
// A GPU whose memory cannot hold a task's buffers at once is not given it, even when
// preferred: the CPU runs it, and no launch fails on the way.
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_TIER_LIMITS=device=1KiB %fw-run %t.fwb --devices=cuda --stats --print-max-elements=0 | FileCheck %s --check-prefix=TOOBIG
// TOOBIG-NOT: GPU failures
// TOOBIG: device cpu: {{[0-9]+}} workers, 3 tasks
// TOOBIG-NEXT: device cuda:0 Fake GPU: 1 worker, 0 tasks
// Two GPUs, the second without code for the module (its driver refuses every image):
// once the first is taken out of service the kernels, which prefer CUDA, go to the CPU
// (they waited forever, or failed with "no device here can run it", while the second GPU
// kept CUDA in service).
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_DEVICES=2 FW_FAKE_CUDA_NO_CODE_ON=1 timeout 60 %fw-run %t.fwb --devices=cuda --benchmark=2 --stats --output=@%t.two0.npy --output=@%t.two1.npy | FileCheck %s --check-prefix=NOCODE
// NOCODE: stats: scheduler heft, 9 tasks submitted, 9 executed, 0 failed
// NOCODE-NEXT: GPU failures: 3 tasks rerun elsewhere, 1 device taken out of service
// NOCODE: device cuda:0 Fake GPU: 1 worker, 0 tasks
// NOCODE-NEXT: device cuda:1 Fake GPU: 1 worker, 0 tasks
// RUN: %python -c "import numpy as np,sys; a=sys.argv[1:]; ok=all(np.array_equal(np.load(a[i]),np.load(a[i+2])) for i in (0,1)); print('same' if ok else 'different')" %t.cpu0.npy %t.cpu1.npy %t.two0.npy %t.two1.npy | FileCheck %s --check-prefix=SAME
// The same two GPUs with a CPU variant: what fails on the first and does not fit the
// second runs on the CPU (the preference for CUDA yields), and the call succeeds.
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_DEVICES=2 FW_FAKE_CUDA_MEMORY=1073741824,4096 %fw-run %t.fwb --devices=cuda --stats --output=@%t.small0.npy --output=@%t.small1.npy | FileCheck %s --check-prefix=SMALLGPU
// SMALLGPU: stats: scheduler heft, 3 tasks submitted, 3 executed, 0 failed
// SMALLGPU: device cuda:1 Fake GPU: 1 worker, 0 tasks
// RUN: %python -c "import numpy as np,sys; a=sys.argv[1:]; ok=all(np.array_equal(np.load(a[i]),np.load(a[i+2])) for i in (0,1)); print('same' if ok else 'different')" %t.cpu0.npy %t.cpu1.npy %t.small0.npy %t.small1.npy | FileCheck %s --check-prefix=SAME
// Kernels with NVIDIA code only, and a second GPU too small for them: a launch that fails
// on the first has nowhere to go, and the call fails with what happened there (not with
// the second GPU's size).
// RUN: %fwc %s --targets=sm_90 -o %t.gpuonly.fwb
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_DEVICES=2 FW_FAKE_CUDA_MEMORY=1073741824,4096 not %fw-run %t.gpuonly.fwb --devices=cuda 2>&1 | FileCheck %s --check-prefix=NOWHERE
// NOWHERE: fw-run: error: in @fb: task @{{.*}}fb_dispatch_0 on Fake GPU: CUDA cuLaunchKernel failed: unspecified launch failure
// --devices naming a kind this machine lacks: the run goes on, on the CPU, and says so.
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_DEVICES=0 %fw-run %t.fwb --devices=cuda --stats --print-max-elements=0 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: fw-run: warning: --devices lists cuda, but this machine has none ({{.+}}); its kernels run on the CPU
// NONE: device cpu: {{[0-9]+}} workers, 3 tasks
// The same list in the environment says so too.
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_DEVICES=0 FW_DEVICES=cpu,cuda %fw-run %t.fwb --print-max-elements=0 2>&1 | FileCheck %s --check-prefix=ENVNONE
// ENVNONE: fw-run: warning: FW_DEVICES lists cuda, but this machine has none ({{.+}}); its kernels run on the CPU

func.func @fb(%a: tensor<64x48xf32>, %b: tensor<48x64xf32>) -> (tensor<64x48xf32>, tensor<48xf32>) {
  %e0 = tensor.empty() : tensor<48x64xf32>
  %t = linalg.transpose ins(%a : tensor<64x48xf32>) outs(%e0 : tensor<48x64xf32>) permutation = [1, 0]
  %s = arith.addf %t, %b : tensor<48x64xf32>
  %e1 = tensor.empty() : tensor<64x48xf32>
  %u = linalg.transpose ins(%s : tensor<48x64xf32>) outs(%e1 : tensor<64x48xf32>) permutation = [1, 0]
  %v = arith.mulf %u, %a : tensor<64x48xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<48xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<48xf32>) -> tensor<48xf32>
  %r = linalg.reduce { arith.addf } ins(%s : tensor<48x64xf32>) outs(%acc : tensor<48xf32>) dimensions = [1]
  return %v, %r : tensor<64x48xf32>, tensor<48xf32>
}
