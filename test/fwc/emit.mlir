// --emit writes LLVM IR, an object or archive that embeds the module (with a
// header), or a fat binary.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %fwc %s --emit=llvm -o %t/add.ll
// RUN: FileCheck %s --check-prefix=LLVMIR < %t/add.ll
// RUN: %fwc %s --emit=obj --module-name=adder -o %t/add.o
// RUN: llvm-readelf -h -S -s %t/add.o | FileCheck %s --check-prefix=OBJ
// RUN: FileCheck %s --check-prefix=HEADER < %t/add.h
// RUN: %fwc %s --emit=static-lib --module-name=adder -o %t/libadder.a
// RUN: llvm-ar t %t/libadder.a | FileCheck %s --check-prefix=LIB
// RUN: %fwc %s -o %t/add.fwb
// RUN: llvm-readelf -h -S --dyn-syms %t/add.fwb | FileCheck %s --check-prefix=FWB
// RUN: %fw-run %t/add.fwb --input=4xf32=1,2,3,4 --input=4xf32=10 | FileCheck %s --check-prefix=RESULT
// The default output name is the input's stem with .fwb, in the working directory.
// RUN: cd %t && %fwc %s && test -f %t/emit.fwb

// LLVMIR: @__fw_metadata = private constant {{.*}} section ".fw.meta", align 8
// LLVMIR: define void @__fw_entry_add(ptr
// LLVMIR: define void @__fwk_add_dispatch_0_cpu_x86_64_v3(ptr {{.*}} #[[KATTR:[0-9]+]]
// Kernels are vectorized for the target's full vector width (from the target table).
// LLVMIR: attributes #[[KATTR]] = { {{.*}}"prefer-vector-width"="256"{{.*}}"target-cpu"="x86-64-v3"
// OBJ: Type: REL (Relocatable file)
// OBJ: Machine: Advanced Micro Devices X86-64
// OBJ-DAG: GLOBAL HIDDEN {{.*}} __fw_module_adder{{$}}
// OBJ-DAG: .init_array
// OBJ-DAG: UND fw_embedded_module_register
// HEADER: static inline fw_status_t adder_load(fw_runtime_t *runtime, fw_module_t **out_module)
// HEADER: /* @add(4xf32, 4xf32) -> (4xf32) */
// HEADER-NEXT: static inline fw_status_t adder_add(fw_module_t *module, fw_buffer_t *arg0, fw_buffer_t *arg1, fw_buffer_t **out_result0)
// HEADER: namespace adder {
// HEADER: fw::Result<std::vector<fw::Buffer>> add(const fw::Buffer &arg0, const fw::Buffer &arg1)
// LIB: adder.o
// FWB: Type: DYN (Shared object file)
// FWB: .fw.meta
// FWB-DAG: __fw_entry_add
// FWB-DAG: __fwk_add_dispatch_0_cpu_x86_64_v3
// RESULT: 4xf32=11 12 13 14

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
