// fw-tune-variants: with candidates, hot executables get variants for higher
// ISA levels and with other knobs (a matmul: cache blocking and register
// tiles; an elementwise kernel: how finely it is divided among workgroups);
// with a profile, the measured fastest target and knobs are kept, whatever the
// runtime had chosen.
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=executables}, fw-tune-variants{candidates=4})" \
// RUN:   --remarks-filter="fw-autotune" --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=TUNE
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_candidates.json}, fw-outline-tasks, fw-tune-variants)" \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=USE
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_unfit_knobs.json}, fw-outline-tasks, fw-tune-variants)" \
// RUN:   2>&1 | FileCheck %s --check-prefix=UNFIT
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_trials.json}, fw-outline-tasks, fw-tune-variants)" \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=TRIALS
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%S/Inputs/profile_isa_levels.json}, fw-outline-tasks, fw-tune-variants)" \
// RUN:   --remarks-filter="fw-profile" --remark-format=emitRemark 2>&1 | FileCheck %s --check-prefix=ISA

// TUNE: remark: [Passed] Autotune | Category:fw-autotune | Function=main_dispatch_0 | Remark="task main_dispatch_0: 4 candidate variants for the runtime to measure (defaults; x86-64-v4 defaults; kc=256; mr=12,nr=8)"
// TUNE: remark: [Passed] Autotune | Category:fw-autotune | Function=main_dispatch_2 | Remark="task main_dispatch_2: 4 candidate variants for the runtime to measure (defaults; x86-64-v4 defaults; min_elements=16384; min_elements=262144)"
// TUNE-LABEL: fw.executable @main_dispatch_0
// TUNE-SAME: fw.autotune
// TUNE: fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">) {
// TUNE: fw.variant @cpu_x86_64_v4 target(#fw.cpu<"x86-64-v4">) {
// TUNE: fw.variant @cpu_x86_64_v3_t2 target(#fw.cpu<"x86-64-v3">) attributes {config = {kc = 256 : i64}}
// TUNE: fw.variant @cpu_x86_64_v3_t3 target(#fw.cpu<"x86-64-v3">) attributes {config = {mr = 12 : i64, nr = 8 : i64}}
// The small elementwise kernel is cold: 90% of the estimated cost is elsewhere.
// TUNE-LABEL: fw.executable @main_dispatch_1
// TUNE-NOT: fw.autotune
// TUNE: fw.variant @cpu_x86_64_v3 target
// TUNE-NOT: fw.variant
// Dynamic shapes have no estimate: tuned.
// TUNE-LABEL: fw.executable @main_dispatch_2
// TUNE: fw.variant @cpu_x86_64_v3 target
// TUNE: fw.variant @cpu_x86_64_v4 target(#fw.cpu<"x86-64-v4">) {
// TUNE: fw.variant @cpu_x86_64_v3_t2 target(#fw.cpu<"x86-64-v3">) attributes {config = {min_elements = 16384 : i64}}
// TUNE: fw.variant @cpu_x86_64_v3_t3 target(#fw.cpu<"x86-64-v3">) attributes {config = {min_elements = 262144 : i64}}

// USE: remark: [Analysis] VariantEvidence | Category:fw-profile | Function=main_dispatch_0 | Remark="task main_dispatch_0: 3 CPU variant(s) measured (defaults: 1.00 ms; kc=256: 1.10 ms; mr=4,nr=16: 700.0 us; the runtime had chosen kc=256)"
// USE: remark: [Passed] KeepVariant | Category:fw-profile | Function=main_dispatch_0 | Remark="task main_dispatch_0: kept the CPU variant with mr=4,nr=16, the fastest of 3 measured"
// USE-LABEL: fw.executable @main_dispatch_0
// USE: fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">) attributes {config = {mr = 4 : i64, nr = 16 : i64}}
// USE-NOT: fw.variant
// USE-LABEL: fw.executable @main_dispatch_1
// USE: fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">) {

// UNFIT: warning: the profile's fastest variant of main_dispatch_0 (target x86-64-v3, knobs 'mr=12,nr=32') does not fit: a 12x32 register tile needs 48 vector registers; x86-64-v3 has 16; the target's defaults are kept
// UNFIT: fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">) {

// Candidates compare on their trial runs, which ran in turn: the chosen one's later
// runs (selected, warmer) do not count in the comparison, only in the task's time.
// TRIALS: Remark="task main_dispatch_0: 3 CPU variant(s) measured (x86-64-v3 defaults: 1.00 ms; x86-64-v3 kc=256: 900.0 us; x86-64-v3 mr=4,nr=16: 800.0 us; the runtime had chosen x86-64-v3 kc=256)"
// TRIALS: Remark="task main_dispatch_0: kept the CPU variant with mr=4,nr=16, the fastest of 3 measured"
// TRIALS: fw.executable @main_dispatch_0
// TRIALS-SAME: fw.profile = {arch = "x86-64-v3", candidates = 3 : i64, config = "mr=4,nr=16", cpu = 6.000000e-04 : f64}

// A higher ISA level measured fastest becomes the first CPU variant; the one
// the build targeted stays behind it, with its defaults, for processors
// without that level.
// ISA: remark: [Passed] KeepVariant | Category:fw-profile | Function=main_dispatch_0 | Remark="task main_dispatch_0: kept the CPU x86-64-v4 variant with the defaults (x86-64-v3 with its defaults stays for processors without x86-64-v4), the fastest of 3 measured"
// ISA: remark: [Passed] KeepVariant | Category:fw-profile | Function=main_dispatch_2 | Remark="task main_dispatch_2: kept the CPU x86-64-v4 variant with min_elements=16384 (x86-64-v3 with its defaults stays for processors without x86-64-v4), the fastest of 2 measured"
// ISA-LABEL: fw.executable @main_dispatch_0
// ISA-NOT: fw.autotune
// ISA-NEXT: fw.variant @cpu_x86_64_v4 target(#fw.cpu<"x86-64-v4">) {
// ISA: fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">) {
// ISA-LABEL: fw.executable @main_dispatch_2
// ISA-NEXT: fw.variant @cpu_x86_64_v4 target(#fw.cpu<"x86-64-v4">) attributes {config = {min_elements = 16384 : i64}}
// ISA: fw.variant @cpu_x86_64_v3 target(#fw.cpu<"x86-64-v3">) {

func.func @main(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>,
                %c: tensor<8x16xf32>, %d: tensor<?x64xf32>)
    -> (tensor<256x256xf32>, tensor<8x16xf32>, tensor<?x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
                      outs(%f0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %neg = arith.negf %c : tensor<8x16xf32>
  %exp = math.exp %d : tensor<?x64xf32>
  return %ab, %neg, %exp : tensor<256x256xf32>, tensor<8x16xf32>, tensor<?x64xf32>
}
