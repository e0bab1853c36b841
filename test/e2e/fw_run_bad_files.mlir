// fw-run given files that are not usable: an empty file, a truncated .fwb, random bytes,
// a directory, bad .npy inputs. Each must give exactly one error line and exit 1 (`not`
// fails on a signal).
// RUN: %fwc %s -o %t.fwb
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: touch %t.d/empty.fwb
// RUN: head -c 100 %t.fwb > %t.d/trunc100.fwb
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(d[:-1])" %t.fwb %t.d/trunc_last.fwb
// RUN: %python -c "import random, sys; r = random.Random(7); open(sys.argv[1], 'wb').write(bytes(r.randrange(256) for _ in range(5000)))" %t.d/random.fwb
// RUN: not %fw-run %t.d/empty.fwb 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not %fw-run %t.d/empty.fwb 2>&1 | count 1
// RUN: not %fw-run %t.d/trunc100.fwb 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: not %fw-run %t.d/trunc100.fwb 2>&1 | count 1
// RUN: not %fw-run %t.d/trunc_last.fwb 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: not %fw-run %t.d/random.fwb 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: not %fw-run %t.d/random.fwb 2>&1 | count 1
// RUN: not %fw-run --list %t.d/random.fwb 2>&1 | count 1
// RUN: not %fw-run %t.d 2>&1 | FileCheck %s --check-prefix=DIR
// RUN: not %fw-run %t.d/missing.fwb 2>&1 | FileCheck %s --check-prefix=MISSING
//
// Bad .npy inputs.
// RUN: %python -c "import numpy as np, sys; np.save(sys.argv[1], np.ones(4, '>f4'))" %t.d/bigendian.npy
// RUN: %python -c "import numpy as np, sys; np.save(sys.argv[1], np.ones(4, np.uint32))" %t.d/u32.npy
// RUN: %python -c "import numpy as np, sys; np.save(sys.argv[1], np.ones(4, np.float32)); d = open(sys.argv[1], 'rb').read(); open(sys.argv[1], 'wb').write(d[:-3])" %t.d/truncated.npy
// RUN: not %fw-run %t.fwb --input=@%t.d/bigendian.npy --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=BIGENDIAN
// RUN: not %fw-run %t.fwb --input=@%t.d/u32.npy --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=U32
// RUN: not %fw-run %t.fwb --input=@%t.d/truncated.npy --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=NPYTRUNC
// RUN: not %fw-run %t.fwb --input=@%t.d/random.fwb --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=NPYMAGIC
// RUN: not %fw-run %t.fwb --input=4xf32=1,2,3,4 --input=4xf32=1,2,3,4 --output=@%t.no-such-dir/o.npy 2>&1 | FileCheck %s --check-prefix=OUTDIR
// An inline value of another shape is refused before its elements are made (here 4 TB).
// RUN: not %fw-run %t.fwb --input=1000000x1000000xf32=1 --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not %fw-run %t.fwb --input=4xf32=1,2,3,4 --input=4xi32=1 2>&1 | FileCheck %s --check-prefix=DTYPE

// EMPTY: fw-run: error: {{.*}}empty.fwb: not a .fwb file: 0 bytes is too small
// TRUNC: fw-run: error: {{.*}}.fwb: not a .fwb file: trailer magic "FWBTRAIL" not found
// DIR: fw-run: error: {{.*}}: not a regular file
// MISSING: fw-run: error: {{.*}}missing.fwb: cannot open: No such file or directory
// BIGENDIAN: fw-run: error: input 0: {{.*}}bigendian.npy: big-endian .npy data
// U32: fw-run: error: input 0: {{.*}}u32.npy: unsupported .npy dtype '<u4'
// NPYTRUNC: fw-run: error: input 0: {{.*}}truncated.npy: truncated .npy data
// NPYMAGIC: fw-run: error: input 0: {{.*}}random.fwb: not a .npy file (bad magic)
// SHAPE: fw-run: error: input 0: expected 4xf32, got 1000000x1000000xf32
// DTYPE: fw-run: error: input 1: expected 4xf32, got 4xi32
// OUTDIR: fw-run: error: --output: cannot write '{{.*}}no-such-dir/o.npy': its directory '{{.*}}no-such-dir': No such file or directory

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
