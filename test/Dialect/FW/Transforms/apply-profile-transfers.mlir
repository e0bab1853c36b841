// fw-apply-profile places a task measured on several device kinds where its run
// time plus the time to move its inputs there is lowest: the bytes its runs had
// copied between tiers (per run), at the rate the profile's copies between
// those tiers got (`transfers`).
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_transfers.json})" \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark 2>&1 | FileCheck %s

// The GPU ran it in 300 us, but its inputs took 419 us to get there each run.
// CHECK: Remark="task main_dispatch_0 placed on cpu: measured cpu 500.0 us, cuda 300.0 us + 419.4 us moving 4.0 MiB host->device a run at 10.00 GB/s"
// CHECK: Remark="task main_dispatch_1 placed on gpu: measured cpu 2.00 ms, cuda 100.0 us + 6.6 us moving 64.0 KiB host->device a run at 10.00 GB/s"
// A pair without a measured rate is said, not counted.
// CHECK: Remark="task main_dispatch_2 placed on cpu: measured cpu 200.0 us (and 1.0 MiB moved storage->host a run, at no measured rate), cuda 400.0 us"
// CHECK-LABEL: func.func @main
// CHECK: fw.task
// CHECK-SAME: hint = #fw.device<cpu>
// CHECK: fw.task
// CHECK-SAME: hint = #fw.device<gpu>
// CHECK: fw.task
// CHECK-SAME: hint = #fw.device<cpu>

func.func @main(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>, %c: tensor<64x64xf32>,
                %d: tensor<64x64xf32>, %e: tensor<256x256xf32>)
    -> (tensor<512x512xf32>, tensor<64x64xf32>, tensor<256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %i0 = tensor.empty() : tensor<512x512xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%i0 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>)
                      outs(%f0 : tensor<512x512xf32>) -> tensor<512x512xf32>
  %i1 = tensor.empty() : tensor<64x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%i1 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %cd = linalg.matmul ins(%c, %d : tensor<64x64xf32>, tensor<64x64xf32>)
                      outs(%f1 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %ex = math.exp %e : tensor<256x256xf32>
  return %ab, %cd, %ex : tensor<512x512xf32>, tensor<64x64xf32>, tensor<256x256xf32>
}
