// REQUIRES: valgrind
// UNSUPPORTED: fw-run-wrapped
// A kernel whose buffer the machine refuses returns at once and fails the
// task; the runtime frees what the kernel had allocated (the first splat,
// still to be read by the reductions): nothing is lost (valgrind counts
// definitely lost blocks as errors), no access is invalid.
// RUN: %fwc %s -o %t.fwb
// RUN: %fw-run %t.fwb --function=two_splats --input=2xi64=300,4 | FileCheck %s --check-prefix=GOOD
// GOOD: f32=304
// RUN: not %valgrind %fw-run %t.fwb --function=two_splats --input=2xi64=300,17592186044416 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: not %valgrind %fw-run %t.fwb --function=two_splats --input=2xi64=17592186044416,4 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: check failed: out of memory: the kernel could not allocate a buffer of its own
// REFUSED: ERROR SUMMARY: 0 errors
// The same where a loop carries the buffers held at the refusal (the last
// iteration's splat, through the loop's block argument; they were lost).
// RUN: %fw-run %t.fwb --function=carried --input=2xi64=3,4 | FileCheck %s --check-prefix=CARRIED
// CARRIED: f32=12
// RUN: not %valgrind %fw-run %t.fwb --function=carried --input=2xi64=3,17592186044416 2>&1 | FileCheck %s --check-prefix=REFUSED
// A failed call still has its statistics and its trace.
// RUN: not %fw-run %t.fwb --function=carried --input=2xi64=3,17592186044416 --stats --trace=%t.json 2>&1 | FileCheck %s --check-prefix=FREED
// FREED-DAG: check failed: out of memory
// FREED-DAG: kernel buffers freed after their kernel returned: 2
// RUN: %python -c "import json,sys; print(sorted({e['name'] for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('ph')=='X'}))" %t.json | FileCheck %s --check-prefix=TRACE
// TRACE: ['kernel_leaks.carried_dispatch_0']
// Buffers allocated in the body of an scf.forall are freed there (they were
// never freed).
// RUN: %valgrind %fw-run %t.fwb --function=doubled_rows --input=2x4xf32=1,2,3,4,5,6,7,8 2>&1 | FileCheck %s --check-prefix=FORALL
// FORALL: 2x4xf32=[2 4 6 8][10 12 14 16]
// FORALL: ERROR SUMMARY: 0 errors

func.func @two_splats(%p: tensor<2xi64>) -> tensor<f32> {
  %r = fw.task(%p) : (tensor<2xi64>) -> tensor<f32> {
  ^bb0(%pp: tensor<2xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %e = tensor.empty() : tensor<f32>
    %init = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %k64 = tensor.extract %pp[%c0] : tensor<2xi64>
    %k = arith.index_cast %k64 : i64 to index
    %l64 = tensor.extract %pp[%c1] : tensor<2xi64>
    %l = arith.index_cast %l64 : i64 to index
    %g = tensor.splat %one[%k] : tensor<?xf32>
    %h = tensor.splat %one[%l] : tensor<?xf32>
    %s = linalg.reduce ins(%g : tensor<?xf32>) outs(%init : tensor<f32>) dimensions = [0]
      (%in: f32, %out: f32) {
        %q = arith.addf %in, %out : f32
        linalg.yield %q : f32
      }
    %t = linalg.reduce ins(%h : tensor<?xf32>) outs(%s : tensor<f32>) dimensions = [0]
      (%in: f32, %out: f32) {
        %q = arith.addf %in, %out : f32
        linalg.yield %q : f32
      }
    fw.yield %t : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @carried(%p: tensor<2xi64>) -> tensor<f32> {
  %r = fw.task(%p) : (tensor<2xi64>) -> tensor<f32> {
  ^bb0(%pp: tensor<2xi64>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %z = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %start = tensor.splat %one[%c1] : tensor<?xf32>
    %res = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %start) -> tensor<?xf32> {
      %k64 = tensor.extract %pp[%i] : tensor<2xi64>
      %k = arith.index_cast %k64 : i64 to index
      %v = tensor.extract %acc[%c0] : tensor<?xf32>
      %w = arith.addf %v, %one : f32
      %g = tensor.splat %w[%k] : tensor<?xf32>
      scf.yield %g : tensor<?xf32>
    }
    %e = tensor.empty() : tensor<f32>
    %init = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %s = linalg.reduce ins(%res : tensor<?xf32>) outs(%init : tensor<f32>) dimensions = [0]
      (%in: f32, %out: f32) {
        %q = arith.addf %in, %out : f32
        linalg.yield %q : f32
      }
    fw.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}

func.func @doubled_rows(%src: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %r = scf.forall (%i) in (2) shared_outs(%o = %e) -> tensor<2x4xf32> {
    %row0 = tensor.empty() : tensor<1x4xf32>
    %row = scf.forall (%j) in (4) shared_outs(%t = %row0) -> tensor<1x4xf32> {
      %x = tensor.extract %src[%i, %j] : tensor<2x4xf32>
      %y = arith.addf %x, %x : f32
      %ys = tensor.from_elements %y : tensor<1x1xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %ys into %t[0, %j] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<1x4xf32>
      }
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %row into %o[%i, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
    }
  }
  return %r : tensor<2x4xf32>
}
