// fwc on input it cannot compile: a diagnostic with file:line:col and a nonzero exit
// (`not` fails on a crash or signal, so these also check that fwc exits normally).
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: not %fwc %t/malformed.mlir -o %t/malformed.fwb 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not %fwc %t/unregistered.mlir -o %t/unregistered.fwb 2>&1 | FileCheck %s --check-prefix=UNREG
// RUN: not %fwc %t/call.mlir -o %t/call.fwb 2>&1 | FileCheck %s --check-prefix=CALL
// RUN: not %fwc %t/scalar_arg.mlir -o %t/scalar_arg.fwb 2>&1 | FileCheck %s --check-prefix=SCALARARG
// RUN: not %fwc %t/scalar_result.mlir -o %t/scalar_result.fwb 2>&1 | FileCheck %s --check-prefix=SCALARRES
// RUN: not %fwc %t/memref_arg.mlir -o %t/memref_arg.fwb 2>&1 | FileCheck %s --check-prefix=MEMREF
// RUN: not %fwc %t/unranked.mlir -o %t/unranked.fwb 2>&1 | FileCheck %s --check-prefix=UNRANKED
// RUN: not %fwc %t/unsigned.mlir -o %t/unsigned.fwb 2>&1 | FileCheck %s --check-prefix=UNSIGNED
// RUN: not %fwc %t/complex.mlir -o %t/complex.fwb 2>&1 | FileCheck %s --check-prefix=COMPLEX
// RUN: not %fwc %t/verifier.mlir -o %t/verifier.fwb 2>&1 | FileCheck %s --check-prefix=VERIFIER
// RUN: not %fwc %t/hostabi.mlir -o %t/hostabi.fwb 2>&1 | FileCheck %s --check-prefix=HOSTABI
// RUN: not %fwc %t/nested.mlir -o %t/nested.fwb 2>&1 | FileCheck %s --check-prefix=NESTED
// An empty (0-byte) input file.
// RUN: rm -f %t/empty.mlir && touch %t/empty.mlir
// RUN: not %fwc %t/empty.mlir -o %t/empty.fwb 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: fwc: error: '{{.*}}empty.mlir' is empty; expected an MLIR module
// A device, which would be read for ever.
// RUN: not %fwc /dev/zero -o %t/zero.fwb 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: fwc: error: '/dev/zero' is a device, not a file

//--- malformed.mlir
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // MALFORMED: malformed.mlir:[[@LINE+1]]:40: error: expected '>' in tensor type
  %r = arith.addf %a, %a : tensor<4xf32
  return %r : tensor<4xf32>
}

//--- unregistered.mlir
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // UNREG: unregistered.mlir:[[@LINE+1]]:17: error: operation being parsed with an unregistered dialect
  %r = "foo.bar"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

//--- call.mlir
// Calls are inlined; a recursive one cannot be.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CALL: call.mlir:[[@LINE+1]]:8: error: 'func.call' op calls a function fwc does not inline (a recursive one, a declaration, an indirect call); an fw entry point is compiled whole
  %r = func.call @f(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

//--- scalar_arg.mlir
// SCALARARG: scalar_arg.mlir:[[@LINE+1]]:1: error: 'func.func' op argument #1 has type 'f32'; fw entry points take and return ranked tensors
func.func @f(%a: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %b = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = arith.addf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

//--- scalar_result.mlir
// SCALARRES: scalar_result.mlir:[[@LINE+1]]:1: error: 'func.func' op result #0 has type 'f32'
func.func @f(%a: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %r = tensor.extract %a[%c0] : tensor<4xf32>
  return %r : f32
}

//--- memref_arg.mlir
// MEMREF: memref_arg.mlir:[[@LINE+1]]:1: error: 'func.func' op argument #0 has type 'memref<4xf32>'
func.func @f(%a: memref<4xf32>) {
  return
}

//--- unranked.mlir
// UNRANKED: unranked.mlir:[[@LINE+1]]:1: error: 'func.func' op argument #0 has type 'tensor<*xf32>'
func.func @f(%a: tensor<*xf32>) -> tensor<*xf32> {
  return %a : tensor<*xf32>
}

//--- unsigned.mlir
// UNSIGNED: unsigned.mlir:[[@LINE+1]]:1: error: 'func.func' op argument #0 has element type 'ui32', which the runtime does not support
func.func @f(%a: tensor<4xui32>) -> tensor<4xui32> {
  return %a : tensor<4xui32>
}

//--- complex.mlir
// COMPLEX: complex.mlir:[[@LINE+1]]:1: error: 'func.func' op argument #0 has element type 'complex<f32>', which the runtime does not support
func.func @f(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  return %a : tensor<4xcomplex<f32>>
}

//--- verifier.mlir
// A conv whose static input is too small for its output: rejected by the op verifier.
func.func @f(%x: tensor<1x2x2x1xf32>, %w: tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  // VERIFIER: verifier.mlir:[[@LINE+1]]:8: error: 'linalg.conv_2d_nhwc_hwcf' op inferred input/output operand #0
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x2x2x1xf32>, tensor<3x3x1x1xf32>) outs(%f : tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  return %r : tensor<1x4x4x1xf32>
}

//--- hostabi.mlir
// The host-call ABI version a module records is fwc's to set: one it cannot write is an
// error, not a fat binary no runtime loads.
// HOSTABI: hostabi.mlir:[[@LINE+1]]:1: error: 'fw.host_abi' is 7; this compiler writes host-call ABI versions 1 to 4
module attributes {fw.host_abi = 7 : i32} {
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %r = arith.addf %a, %a : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}

//--- nested.mlir
// NESTED: nested.mlir:[[@LINE+1]]:1: error: nested modules are not compiled; put their functions at the top level
module @outer {
  module @inner {
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }
  }
}
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
