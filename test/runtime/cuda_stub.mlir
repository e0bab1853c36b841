// With CUDA's stub libcuda.so as libcuda.so.1 (every driver entry point exists, cuInit
// fails), the runtime resolves all the functions it uses and reports why there is no
// CUDA device instead of failing to load.
// REQUIRES: cuda-stub
// RUN: rm -rf %t.stub && mkdir -p %t.stub && ln -s /usr/local/cuda/lib64/stubs/libcuda.so %t.stub/libcuda.so.1
// RUN: env LD_LIBRARY_PATH=%t.stub %fw-run --list-devices | FileCheck %s
// CHECK: cpu: {{.*}} CPUs usable
// CHECK-NEXT: cuda: none (cuInit failed (no usable NVIDIA driver))
