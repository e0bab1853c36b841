// The dynamic-batch MLP of examples/mlp.mlir, compiled from there, run with batch 3 and 17.
// RUN: %fwc %S/../../examples/mlp.mlir -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=main --case=mlp --arg-shapes="3x784;784x256;256;256x10;10" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=main --case=mlp --arg-shapes="17x784;784x256;256;256x10;10" --tmp=%t
// Unfused (-O0: one task per operation) gives the same answers.
// RUN: %fwc -O0 %S/../../examples/mlp.mlir -o %t.O0.fwb
// RUN: %fw-run --list %t.O0.fwb | grep -c executable | FileCheck %s --check-prefix=O0TASKS
// O0TASKS: 4
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.O0.fwb --function=main --case=mlp --arg-shapes="17x784;784x256;256;256x10;10" --tmp=%t
