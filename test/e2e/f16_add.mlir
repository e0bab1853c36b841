// f16 elementwise add (compared with f16 tolerance).
// RUN: %fwc %s -o %t.fwb
// RUN: %python %S/e2e.py --fw-run=%fw-run --module=%t.fwb --function=f16_add --case=f16_add --arg-shapes="10x256;10x256" --tmp=%t

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @f16_add(%a: tensor<?x256xf16>, %b: tensor<?x256xf16>) -> tensor<?x256xf16> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x256xf16>
  %init = tensor.empty(%n) : tensor<?x256xf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x256xf16>, tensor<?x256xf16>) outs(%init : tensor<?x256xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %s = arith.addf %x, %y : f16
    linalg.yield %s : f16
  } -> tensor<?x256xf16>
  return %r : tensor<?x256xf16>
}
