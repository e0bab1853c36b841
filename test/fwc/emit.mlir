// --emit writes LLVM IR, a relocatable object or a fat binary.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %fwc %s --emit=llvm -o %t/add.ll
// RUN: FileCheck %s --check-prefix=LLVMIR < %t/add.ll
// RUN: %fwc %s --emit=obj -o %t/add.o
// RUN: llvm-readelf -h -S %t/add.o | FileCheck %s --check-prefix=OBJ
// RUN: %fwc %s -o %t/add.fwb
// RUN: llvm-readelf -h -S --dyn-syms %t/add.fwb | FileCheck %s --check-prefix=FWB
// RUN: %fw-run %t/add.fwb --input=4xf32=1,2,3,4 --input=4xf32=10 | FileCheck %s --check-prefix=RESULT
// The default output name is the input's stem with .fwb, in the working directory.
// RUN: cd %t && %fwc %s && test -f %t/emit.fwb

// LLVMIR: @__fw_metadata = private constant {{.*}} section ".fw.meta", align 8
// LLVMIR: define void @__fw_entry_add(ptr
// LLVMIR: define void @__fwk_add_dispatch_0_cpu_x86_64_v3(ptr {{.*}} #[[KATTR:[0-9]+]]
// LLVMIR: attributes #[[KATTR]] = { {{.*}}"target-cpu"="x86-64-v3"
// OBJ: Type: REL (Relocatable file)
// OBJ: Machine: Advanced Micro Devices X86-64
// OBJ: .fw.meta
// FWB: Type: DYN (Shared object file)
// FWB: .fw.meta
// FWB-DAG: __fw_entry_add
// FWB-DAG: __fwk_add_dispatch_0_cpu_x86_64_v3
// RESULT: 4xf32=11 12 13 14

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
