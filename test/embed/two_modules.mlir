// Two modules compiled to objects coexist in one program; each registers
// itself before main and is loaded through its generated header. Two modules
// with the same name fail to link, and the linker names the module.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %fwc %S/Inputs/add.mlir --emit=obj --module-name=adder -o %t/adder.o
// RUN: %fwc %S/Inputs/scale.mlir --emit=static-lib --module-name=scaler -o %t/libscaler.a --header=%t/scaler.h
// RUN: %cc %runtime-cflags -I%t %S/Inputs/two_modules.c %t/adder.o %t/libscaler.a %runtime-lib -o %t/two
// RUN: %t/two | FileCheck %s
// The registration runs with every linker (constructors in .init_array).
// RUN: %cc -fuse-ld=lld %runtime-cflags -I%t %S/Inputs/two_modules.c %t/adder.o %t/libscaler.a %runtime-lib -o %t/two-lld
// RUN: %t/two-lld | FileCheck %s
// CHECK: sum 11 22 33 44
// CHECK-NEXT: twice 22 44 66 88
// CHECK-NEXT: thrice 33 66 99 132
// CHECK-NEXT: wrong shape: argument 0 of @add: expected 4xf32, got 5xf32
// CHECK-NEXT: null module: {{.*}}NULL
//
// RUN: %fwc %S/Inputs/scale.mlir --emit=obj --module-name=adder -o %t/adder2.o
// RUN: not %cc %runtime-cflags -I%t %S/Inputs/two_modules.c %t/adder.o %t/adder2.o %t/libscaler.a %runtime-lib -o %t/dup 2>&1 | FileCheck %s --check-prefix=DUP
// DUP: __fw_module_adder
//
// Module names must be C identifiers.
// RUN: not %fwc %S/Inputs/add.mlir --emit=obj --module-name=3d-model -o %t/bad.o 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: fwc: error: module name '3d-model' is not a C identifier
// RUN: not %fwc %S/Inputs/add.mlir --emit=obj --module-name=new -o %t/bad.o 2>&1 | FileCheck %s --check-prefix=KEYWORD
// KEYWORD: fwc: error: module name 'new' is reserved
// RUN: not %fwc %S/Inputs/add.mlir --emit=obj --module-name=fw -o %t/bad.o 2>&1 | FileCheck %s --check-prefix=FWNAME
// FWNAME: fwc: error: module name 'fw' is reserved
// A function whose name the header needs for itself cannot be embedded.
// RUN: not %fwc %S/Inputs/load.mlir --emit=obj --module-name=m -o %t/bad.o 2>&1 | FileCheck %s --check-prefix=LOAD
// LOAD: load.mlir:1:1: error: {{.*}}function name 'load' clashes with a keyword or with a name the generated header defines
// RUN: sed 's/@load/@Module/' %S/Inputs/load.mlir > %t/class.mlir
// RUN: not %fwc %t/class.mlir --emit=obj --module-name=m -o %t/bad.o 2>&1 | FileCheck %s --check-prefix=CLASS
// CLASS: class.mlir:1:1: error: {{.*}}function name 'Module' clashes with a keyword or with a name the generated header defines
// RUN: sed 's/@load/@handle_/' %S/Inputs/load.mlir > %t/member.mlir
// RUN: not %fwc %t/member.mlir --emit=obj --module-name=m -o %t/bad.o 2>&1 | FileCheck %s --check-prefix=MEMBER
// MEMBER: member.mlir:1:1: error: {{.*}}function name 'handle_' clashes
