// The profile-guided split end to end, on batch normalization with the batch's statistics
// (training mode). The column means are one task; the column variances and the
// normalization that needs them are another, which the CPU code generator cannot divide
// among workers (the variances are summed by columns, each normalized element needs its
// column's over all rows), so it runs whole on one worker. Its profile makes the rebuild
// split it in two tasks that divide, with the same results. The test holds whatever
// FW_E2E_FWC_FLAGS says (with the GPU mapping emulated on the CPU no kernel divides: the
// means' task splits too).
// RUN: %fwc %s -O3 -o %t.fwb
// RUN: rm -f %t.json
// RUN: %fw-run %t.fwb --devices=cpu --workers=2 --default-dim=4096 --benchmark=3 --profile-out=%t.json --print-max-elements=0 > /dev/null
// RUN: %fwc %s -O3 --profile-use=%t.json --remarks=%t.yaml -o %t.pgo.fwb
// RUN: FileCheck %s --check-prefix=REMARKS < %t.yaml
// REMARKS: --- !Passed
// REMARKS-NEXT: Pass: fw-profile
// REMARKS-NEXT: Name: SplitTask
// REMARKS: Function: batch_norm_dispatch_1
// REMARKS: ran whole on one of 2 CPU workers for {{.*}}: split into 2 tasks (linalg.fill + linalg.generic | linalg.generic)
// RUN: %fw-run --list %t.pgo.fwb | FileCheck %s --check-prefix=LIST
// LIST: executable @batch_norm_dispatch_2(
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.pgo.fwb --function=batch_norm --case=batch_norm --arg-shapes="200x1024;1024;1024" --tmp=%t
// RUN: env FW_NUM_WORKERS=1 %python %S/e2e.py --fw-run=%fw-run --module=%t.pgo.fwb --function=batch_norm --case=batch_norm --arg-shapes="33x1024;1024;1024" --tmp=%t
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=batch_norm --case=batch_norm --arg-shapes="200x1024;1024;1024" --tmp=%t

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
#vec = affine_map<(j) -> (j)>

func.func @batch_norm(%x: tensor<?x1024xf32>, %gamma: tensor<1024xf32>, %beta: tensor<1024xf32>)
    -> tensor<?x1024xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %n = tensor.dim %x, %c0 : tensor<?x1024xf32>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %ec = tensor.empty() : tensor<1024xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<1024xf32>) -> tensor<1024xf32>
  %sums = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x1024xf32>) outs(%zc : tensor<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  %mean = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%sums : tensor<1024xf32>) outs(%ec : tensor<1024xf32>) {
  ^bb0(%s: f32, %o: f32):
    %m = arith.divf %s, %nf : f32
    linalg.yield %m : f32
  } -> tensor<1024xf32>
  %squares = linalg.generic {indexing_maps = [#id, #col, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x, %mean : tensor<?x1024xf32>, tensor<1024xf32>) outs(%zc : tensor<1024xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %q = arith.mulf %d, %d : f32
    %s = arith.addf %q, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  %e = tensor.empty(%n) : tensor<?x1024xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #col, #col, #col, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %squares, %gamma, %beta
          : tensor<?x1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>)
      outs(%e : tensor<?x1024xf32>) {
  ^bb0(%a: f32, %m: f32, %q: f32, %g: f32, %b: f32, %o: f32):
    %var = arith.divf %q, %nf : f32
    %ve = arith.addf %var, %eps : f32
    %sd = math.sqrt %ve : f32
    %d = arith.subf %a, %m : f32
    %nd = arith.divf %d, %sd : f32
    %sc = arith.mulf %nd, %g : f32
    %r = arith.addf %sc, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}
