// Autotuning of GPU variants, through the stand-in driver of runtime/test/fake_cuda.c:
// launches succeed without running, each taking a virtual device time set per block size
// (FW_FAKE_CUDA_BLOCK_US), so the candidates differ in speed by construction. The
// runtime's tuner for the GPU times each candidate's trials with events and keeps the
// fastest (512 threads here, neither the defaults nor the first or last candidate); the
// profile records it, and a --profile-use build keeps only that variant for sm_90.
// REQUIRES: ptxas
// RUN: %fwc %s --targets=cpu,sm_90 --autotune=4 --module-name=gputune -o %t.fwb
// RUN: %fw-run --list %t.fwb | FileCheck %s --check-prefix=LIST
// LIST: variant cuda sm_90: image-kernel main_dispatch_0 (blocks of 256 threads)
// LIST-NEXT: variant cuda sm_90: image-kernel main_dispatch_0 (blocks of 512 threads) config block=512
// LIST-NEXT: variant cuda sm_90: image-kernel main_dispatch_0 (blocks of 128 threads) config block=128
// LIST-NEXT: variant cuda sm_90: image-kernel main_dispatch_0 (blocks of 1024 threads) config block=1024
// RUN: rm -f %t.json %t.log
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=noop FW_FAKE_CUDA_BLOCK_US=128=400,512=90,1024=300 FW_FAKE_CUDA_LOG=%t.log \
// RUN:   %fw-run %t.fwb --devices=cuda --benchmark=30 --stats --profile-out=%t.json --print-max-elements=0 | FileCheck %s --check-prefix=STATS
// STATS: autotuning (size class: bytes the calls access):
// STATS-NEXT: @main_dispatch_0 (8.0 KiB+) on cuda:0: sm_90 block=512, the fastest of 4 (90 us)
// Each candidate ran its warm-up and five trials with its own block size; then the
// chosen one ran every call.
// RUN: %python -c "import sys,collections; c=collections.Counter(l.split()[-1] for l in open(sys.argv[1]) if l.startswith('launch')); print(sorted(c.items()))" %t.log | FileCheck %s --check-prefix=LAUNCHES
// LAUNCHES: [('1024', 6), ('128', 6), ('256', 6), ('512', 13)]
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); [print('entry', t['device'], t['arch'], t['config'] or 'defaults', 'selected' if t.get('selected') else 'trial', t['c' 'ount'], round(t['device_seconds']['total'] / t['device_seconds']['runs'] * 1e6)) for t in sorted(d['tasks'], key=lambda t: (t['config'], t.get('selected', False)))]" %t.json | FileCheck %s --check-prefix=PROFILE
// PROFILE: entry cuda sm_90 defaults trial 6 250
// PROFILE-NEXT: entry cuda sm_90 block=1024 trial 6 300
// PROFILE-NEXT: entry cuda sm_90 block=128 trial 6 400
// PROFILE-NEXT: entry cuda sm_90 block=512 trial 6 90
// PROFILE-NEXT: entry cuda sm_90 block=512 selected 7 90
// RUN: %fwc %s --targets=cpu,sm_90 --module-name=gputune --profile-use=%t.json --remarks=%t.remarks.yaml -o %t.tuned.fwb
// RUN: FileCheck %s --check-prefix=REMARKS < %t.remarks.yaml
// REMARKS: Remark: 'task main_dispatch_0: 4 sm_90 variant(s) measured (defaults: 250.0 us; block=1024: 300.0 us; block=128: 400.0 us; block=512: 90.0 us)'
// REMARKS: Remark: 'task main_dispatch_0: kept the sm_90 variant with block=512, the fastest of 4 measured'
// RUN: %fw-run --list %t.tuned.fwb | FileCheck %s --check-prefix=TUNED
// TUNED: variant cpu x86-64-v3
// TUNED-NEXT: variant cuda sm_90: image-kernel main_dispatch_0 (blocks of 512 threads) config block=512
// TUNED-NOT: variant
// With FW_AUTOTUNE=0 every launch takes the first variant.
// RUN: rm -f %t.off.log
// RUN: env LD_LIBRARY_PATH=%fake-cuda-dir FW_FAKE_CUDA_LAUNCH=noop FW_AUTOTUNE=0 FW_FAKE_CUDA_LOG=%t.off.log \
// RUN:   %fw-run %t.fwb --devices=cuda --benchmark=5 --stats --print-max-elements=0 | FileCheck %s --check-prefix=OFF
// OFF-NOT: autotuning
// RUN: %python -c "import sys; print(sorted(set(l.split()[-1] for l in open(sys.argv[1]) if l.startswith('launch'))))" %t.off.log | FileCheck %s --check-prefix=OFFLAUNCH
// OFFLAUNCH: ['256']

func.func @main(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %r = arith.addf %a, %b : tensor<1024xf32>
  return %r : tensor<1024xf32>
}
