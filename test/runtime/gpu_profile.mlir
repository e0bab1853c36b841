// Profiles of GPU runs, through the stand-in drivers of runtime/test/fake_cuda.c (launches
// that succeed without running, each 250 us on a virtual device clock) and fake_nvml.c (a
// GPU drawing 300 W): the kernels' device time comes from events recorded around each
// launch, and a monitor thread samples the GPU's power through NVML.
// REQUIRES: ptxas
// RUN: %fwc %s --targets=cpu,sm_90 --module-name=gpuprof -o %t.fwb
// RUN: rm -f %t.json
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=noop %fw-run %t.fwb --devices=cuda --benchmark=4 --profile-out=%t.json --print-max-elements=0 > /dev/null
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); [print('task', t['device'], t['arch'], sum(n for b, n in t['histogram']), 'device_runs', t['device_seconds']['runs'], 'device_us_per_run', round(t['device_seconds']['total'] / t['device_seconds']['runs'] * 1e6)) for t in d['tasks']]; [print('power', p['device'], 'samples', 'ok' if p['samples'] >= 1 else p['samples'], 'average_watts', round(p['average_watts']), 'max_watts', round(p['max_watts'])) for p in d['power']['devices']]" %t.json | FileCheck %s
// CHECK: task cuda sm_90 5 device_runs 5 device_us_per_run 250
// CHECK: power cuda:0 samples ok average_watts 300 max_watts 300
// Every copy between tiers and its time: the inputs went to the device once, the result
// came back once; a second run merges its copies in.
// RUN: %python -c "import json,sys; t=json.load(open(sys.argv[1]))['transfers']; [print('transfer', k, v['bytes'], v['seconds'] > 0) for k, v in sorted(t.items())]" %t.json | FileCheck %s --check-prefix=TRANSFERS
// TRANSFERS: transfer device->host 4096 True
// TRANSFERS-NEXT: transfer host->device 8192 True
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=noop %fw-run %t.fwb --devices=cuda --benchmark=4 --profile-out=%t.json --stats --print-max-elements=0 | FileCheck %s --check-prefix=RATE
// RATE: moved host -> device: 8.0 KiB ({{[0-9.]+}} GB/s a copy)
// RUN: %python -c "import json,sys; t=json.load(open(sys.argv[1]))['transfers']; [print('merged', k, v['bytes']) for k, v in sorted(t.items())]" %t.json | FileCheck %s --check-prefix=MERGED
// MERGED: merged device->host 8192
// MERGED-NEXT: merged host->device 16384
// Without NVML the profile says why there is no power figure.
// RUN: mkdir -p %t.nonvml && cp %fake-cuda-dir/libcuda.so.1 %t.nonvml/
// RUN: rm -f %t.nonvml.json
// RUN: env LD_LIBRARY_PATH=%t.nonvml FW_FAKE_CUDA_LAUNCH=noop %fw-run %t.fwb --devices=cuda --profile-out=%t.nonvml.json --print-max-elements=0 > /dev/null
// RUN: %python -c "import json,sys; p=json.load(open(sys.argv[1]))['power']; print(p['source'], p['devices'], p['note'])" %t.nonvml.json | FileCheck %s --check-prefix=NONVML
// NONVML: nvml [] libnvidia-ml.so.1: cannot open shared object file
// CPU-only runs have no power section.
// RUN: rm -f %t.cpu.json
// RUN: %fw-run %t.fwb --devices=cpu --profile-out=%t.cpu.json --print-max-elements=0 > /dev/null
// RUN: %python -c "import json,sys; print('power' in json.load(open(sys.argv[1])))" %t.cpu.json | FileCheck %s --check-prefix=CPUONLY
// CPUONLY: False

func.func @main(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %r = arith.addf %a, %b : tensor<1024xf32>
  return %r : tensor<1024xf32>
}
