// The convolutional network and the attention head of examples/, in their default,
// autotuning and profile-guided builds, against numpy.
// RUN: %fwc %examples/convnet.mlir -o %t.convnet.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.convnet.fwb --function=main --case=convnet --arg-shapes="2x32x32x8;3x3x8x32;32;3x3x32x32;32;32x10;10" --tmp=%t
// RUN: %fwc %examples/convnet.mlir --autotune=4 -o %t.convnet.tune.fwb
// RUN: rm -f %t.convnet.json
// RUN: %fw-run %t.convnet.tune.fwb --default-dim=2 --benchmark=16 --profile-out=%t.convnet.json --print-max-elements=0 > /dev/null
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.convnet.tune.fwb --function=main --case=convnet --arg-shapes="3x32x32x8;3x3x8x32;32;3x3x32x32;32;32x10;10" --tmp=%t
// RUN: %fwc %examples/convnet.mlir --profile-use=%t.convnet.json -o %t.convnet.pgo.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.convnet.pgo.fwb --function=main --case=convnet --arg-shapes="2x32x32x8;3x3x8x32;32;3x3x32x32;32;32x10;10" --tmp=%t
// RUN: %fwc %examples/attention.mlir -o %t.attention.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.attention.fwb --function=main --case=attention --arg-shapes="37x256;256x64;256x64;256x64;64x256" --tmp=%t
// RUN: %fwc %examples/attention.mlir --autotune=4 -o %t.attention.tune.fwb
// RUN: rm -f %t.attention.json
// RUN: %fw-run %t.attention.tune.fwb --default-dim=37 --benchmark=16 --profile-out=%t.attention.json --print-max-elements=0 > /dev/null
// RUN: %fwc %examples/attention.mlir --profile-use=%t.attention.json -o %t.attention.pgo.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.attention.pgo.fwb --function=main --case=attention --arg-shapes="37x256;256x64;256x64;256x64;64x256" --tmp=%t
