// fw_module_call_async on a compiled function returns once its tasks are submitted:
// the host code does not wait for its dispatches (the runtime waits for the call's tasks
// in fw_call_wait). The call's task waits behind a C task holding its input; the call
// returns while that task still holds it, and then reads what it wrote.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %fwc %S/Inputs/add.mlir --emit=obj --module-name=adder -o %t/adder.o
// RUN: %cc %runtime-cflags -I%t %S/Inputs/async_call.c %t/adder.o %runtime-lib -o %t/async
// RUN: %t/async | FileCheck %s
// CHECK: returned before its tasks ran: yes
// CHECK-NEXT: sum 111 22 33 44
