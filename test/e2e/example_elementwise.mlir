// examples/elementwise.mlir, compiled from there, run with 2 and 7 rows.
// RUN: %fwc %S/../../examples/elementwise.mlir -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=main --case=example_elementwise --arg-shapes="2x1024;1024" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=main --case=example_elementwise --arg-shapes="7x1024;1024" --tmp=%t
