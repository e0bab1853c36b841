// A program that links the runtime statically without exporting its symbols
// (no -rdynamic) still runs fat binaries: they call the runtime through the
// function table the runtime fills at load time.
// RUN: %fwc %s -o %t.fwb
// RUN: %cc %runtime-cflags %S/Inputs/call_add.c %runtime-lib -o %t.exe
// RUN: %t.exe %t.fwb | FileCheck %s
// CHECK: 11 22 33 44

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
