// A column-major (Fortran-order) .npy input, as numpy writes for transposed
// arrays, is read with its logical layout.
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %fwc %s -o %t.fwb
// RUN: %python -c "import numpy as np, sys; np.save(sys.argv[1], np.arange(6, dtype=np.float32).reshape(3, 2).T)" %t.d/x.npy
// RUN: %python -c "import numpy as np, sys; assert np.load(sys.argv[1]).flags.f_contiguous" %t.d/x.npy
// RUN: %fw-run %t.fwb --input=@%t.d/x.npy | FileCheck %s
// CHECK: result[0]: 2x3xf32
// CHECK-NEXT: 2x3xf32=[0 2 4][1 3 5]

func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.copy ins(%x : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
