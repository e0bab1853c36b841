// The profile-guided loop end to end: an autotuning build measures its
// candidates online and records them; the rebuild with --profile-use keeps the
// fastest variant per task, writes its decisions as remarks, and computes the
// same results.
// RUN: %fwc %s --autotune=3 --module-name=pgo -o %t.tune.fwb
// RUN: %fw-run %t.tune.fwb --list | FileCheck %s --check-prefix=LIST
// LIST: variant cpu x86-64-v3: symbol __fwk_main_dispatch_0_cpu_x86_64_v3 (divided among workers){{$}}
// LIST-NEXT: variant cpu x86-64-v4: symbol __fwk_main_dispatch_0_cpu_x86_64_v4 (divided among workers){{$}}
// LIST-NEXT: variant cpu x86-64-v3: symbol __fwk_main_dispatch_0_cpu_x86_64_v3_t2 (divided among workers) config kc=256
// RUN: rm -f %t.prof.json
// RUN: %fw-run %t.tune.fwb --default-dim=64 --benchmark=20 --profile-out=%t.prof.json --output=@%t.tune.npy > /dev/null
// RUN: %python %S/../runtime/Inputs/check_profile.py %t.prof.json | FileCheck %s --check-prefix=PROFILE
// PROFILE: fw-profile 2 pgo runs=1
// Three candidates, each with an entry of its trial runs (two where the processor lacks
// AVX-512: the x86-64-v4 one does not load), and one entry of the chosen one's later runs.
// RUN: %python -c "import json,sys; t=[e for e in json.load(open(sys.argv[1]))['tasks'] if e['task']=='pgo.main_dispatch_0']; print('candidates', 'ok' if sum(1 for e in t if e.get('selected') != True) in (2, 3) else t, sum(1 for e in t if e.get('selected')), 'selected')" %t.prof.json | FileCheck %s --check-prefix=CANDIDATES
// CANDIDATES: candidates ok 1 selected
// fw-run --stats says what the runtime chose.
// RUN: %fw-run %t.tune.fwb --default-dim=64 --benchmark=20 --stats --print-max-elements=0 | FileCheck %s --check-prefix=STATS
// STATS: autotuning (size class: bytes the calls access):
// STATS-NEXT: @main_dispatch_0 ({{[0-9.]+}} KiB+): x86-64-v{{[34]}} {{.*}}, the fastest of {{[23]}} ({{[0-9.]+}} {{us|ms}})
// RUN: %fwc %s --profile-use=%t.prof.json --remarks=%t.remarks.yaml --module-name=pgo -o %t.pgo.fwb
// RUN: FileCheck %s --check-prefix=REMARKS < %t.remarks.yaml
// Remarks that cannot be written are an error, and then no output is written.
// RUN: rm -f %t.full.fwb
// RUN: not %fwc %s --profile-use=%t.prof.json --remarks=/dev/full -o %t.full.fwb 2>&1 | FileCheck %s --check-prefix=FULL --implicit-check-not="LLVM ERROR"
// RUN: not test -e %t.full.fwb
// RUN: not %fwc %s -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL --implicit-check-not="LLVM ERROR"
// FULL: fwc: error: cannot write '/dev/full'
// REMARKS: --- !Analysis
// REMARKS: Name: VariantEvidence
// REMARKS: Function: main_dispatch_0
// REMARKS: {{[23]}} CPU variant(s) measured
// REMARKS: --- !Passed
// REMARKS: Name: KeepVariant
// REMARKS: Function: main_dispatch_0
// REMARKS: kept the CPU {{(x86-64-v4 )?}}variant with
// The kept variant alone, or (when x86-64-v4 won) that one first and the x86-64-v3 one
// with its defaults behind it.
// RUN: %fw-run %t.pgo.fwb --list | FileCheck %s --check-prefix=PGO
// PGO: executable @main_dispatch_0
// PGO-NEXT: variant cpu x86-64-v{{[34]}}: symbol __fwk_main_dispatch_0_cpu_x86_64_v{{[34]}} (divided among workers)
// PGO-NOT: _t{{[0-9]}}
// RUN: %fw-run %t.pgo.fwb --default-dim=64 --output=@%t.pgo.npy > /dev/null
// RUN: %python -c "import numpy as np,sys; a,b=(np.load(f) for f in sys.argv[1:]); print('same' if np.allclose(a, b, rtol=1e-5, atol=1e-5) else 'different')" %t.tune.npy %t.pgo.npy | FileCheck %s --check-prefix=SAME
// SAME: same
// A profile of another program is ignored, with a warning.
// RUN: %fwc %S/../e2e/matmul.mlir --profile-use=%t.prof.json -o %t.other.fwb 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: warning: profile '{{.*}}prof.json' was made from another source program (source id 0x{{[0-9a-f]+}}, this one 0x{{[0-9a-f]+}}): it is ignored
// RUN: not %fwc %s --profile-use=%t.nonexistent.json -o %t.none.fwb 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: profile '{{.*}}nonexistent.json': cannot be read
// RUN: not %fwc %s --autotune=9 -o %t.none.fwb 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: fwc: error: --autotune: Value 9 not in range 1 to 8

func.func @main(%x: tensor<?x128xf32>, %w: tensor<128x96xf32>, %b: tensor<96xf32>)
    -> tensor<?x96xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x128xf32>
  %e = tensor.empty(%n) : tensor<?x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x128xf32>, tensor<128x96xf32>)
                     outs(%f : tensor<?x96xf32>) -> tensor<?x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : tensor<?x96xf32>, tensor<96xf32>) outs(%e : tensor<?x96xf32>) {
    ^bb0(%v: f32, %bias: f32, %o: f32):
      %s = arith.addf %v, %bias : f32
      %m = arith.maximumf %s, %zero : f32
      linalg.yield %m : f32
  } -> tensor<?x96xf32>
  return %r : tensor<?x96xf32>
}
