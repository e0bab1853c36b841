// Broken profiles: a clear error naming the file and the problem, never a
// crash; a profile of another source program is ignored with a warning.
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: profile '{{.*}}missing.json': cannot be read: No such file or directory

// RUN: echo 'results of last week' > %t.text.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.text.json 2>&1 | FileCheck %s --check-prefix=NOTJSON
// NOTJSON: error: profile '{{.*}}text.json': is not JSON: [1:1, byte=1]: Invalid JSON value

// RUN: head -c 300 %S/Inputs/profile_candidates.json > %t.truncated.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.truncated.json 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: error: profile '{{.*}}truncated.json': is not JSON: {{.*}}

// RUN: echo '{"format": "fw-profile", "version": 1, "tasks": []}' > %t.v1.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.v1.json 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: error: profile '{{.*}}v1.json': has format version 1; this fwc reads 2

// RUN: echo '{"format": "something else"}' > %t.other.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.other.json 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: error: profile '{{.*}}other.json': is not an fw profile (no "format": "fw-profile")

// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['tasks'][1]['device']='tpu'; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_candidates.json %t.device.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.device.json 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: profile '{{.*}}device.json': tasks[1]: "device" must be "cpu", "cuda" or "hip"

// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['tasks'][0]['seconds']['median']=-1; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_candidates.json %t.negative.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.negative.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: profile '{{.*}}negative.json': tasks[0]: "seconds" must hold a non-negative "median" and "total"

// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); del d['module']['source_id']; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_candidates.json %t.nosource.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.nosource.json 2>&1 | FileCheck %s --check-prefix=NOSOURCE
// NOSOURCE: error: profile '{{.*}}nosource.json': has no valid module.build_id and module.source_id ("0x" and hex digits)

// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['tasks'][2]['workgroups']='all'; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_candidates.json %t.workgroups.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.workgroups.json 2>&1 | FileCheck %s --check-prefix=WORKGROUPS
// WORKGROUPS: error: profile '{{.*}}workgroups.json': tasks[2]: "workgroups" must be a non-negative integer

// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['tasks'][1]['bytes_moved']={'host->gpu': 4};  json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_transfers.json %t.moved.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.moved.json 2>&1 | FileCheck %s --check-prefix=MOVED
// MOVED: error: profile '{{.*}}moved.json': tasks[1]: "bytes_moved" must map tier pairs ("host->device") to byte counts
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['transfers']['host->device']['seconds']=-1; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_transfers.json %t.transfers.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.transfers.json 2>&1 | FileCheck %s --check-prefix=TRANSFERS
// TRANSFERS: error: profile '{{.*}}transfers.json': "transfers" must map tier pairs ("host->device") to {"bytes", "seconds"}

// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['tasks'][0]['device_seconds']={'total': 0.1}; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_gpu_candidates.json %t.devsec.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.devsec.json 2>&1 | FileCheck %s --check-prefix=DEVSEC
// DEVSEC: error: profile '{{.*}}devsec.json': tasks[0]: "device_seconds" must hold a non-negative "total" and "runs"

// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['cpu_workers']=-2; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_candidates.json %t.workers.json
// RUN: not %fw-opt %s --fw-apply-profile=profile=%t.workers.json 2>&1 | FileCheck %s --check-prefix=WORKERS
// WORKERS: error: profile '{{.*}}workers.json': "cpu_workers" must be a non-negative integer

// RUN: %fw-opt %s --fw-apply-profile="profile=%S/Inputs/profile_candidates.json source-id=0x1234" 2>&1 | FileCheck %s --check-prefix=SOURCE
// SOURCE: warning: profile '{{.*}}profile_candidates.json' was made from another source program (source id 0x00000000000000aa, this one 0x0000000000001234): it is ignored
// SOURCE-NOT: fw.profile

// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['tasks'][2]['config']='tile=4x4'; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_candidates.json %t.knob.json
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%t.knob.json}, fw-outline-tasks, fw-tune-variants)" 2>&1 | FileCheck %s --check-prefix=KNOB
// KNOB: warning: the profile's fastest variant of main_dispatch_0 (target x86-64-v3, knobs 'tile=4x4') does not fit: 'tile=4x4' is not of the form knob=integer; the target's defaults are kept

// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); [t.update(task='elsewhere.f_dispatch_0') for t in d['tasks']]; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_candidates.json %t.names.json
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%t.names.json})" 2>&1 | FileCheck %s --check-prefix=NAMES
// NAMES: warning: profile '{{.*}}names.json' names no task of this module

// A profile of a build with other options (other fusion: other tasks under the same
// names) is recognized by its binding types and not applied.
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); [t.update(bindings='?x784xf32, ?x256xf32') for t in d['tasks']]; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_candidates.json %t.bindings.json
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%t.bindings.json})" 2>&1 | FileCheck %s --check-prefix=BINDINGS
// BINDINGS: warning: the profile's main_dispatch_0 has bindings (?x784xf32, ?x256xf32), this task (256x256xf32, 256x256xf32, 256x256xf32): the profile comes from a build with other options; its figures are not used for this task
// BINDINGS-NOT: fw.profile
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); [t.update(bindings='256x256xf32, 256x256xf32, 256x256xf32') for t in d['tasks']]; json.dump(d, open(sys.argv[2], 'w'))" %S/Inputs/profile_candidates.json %t.samebindings.json
// RUN: %fw-opt %s --pass-pipeline="builtin.module(fwc-pipeline{compile-to=tasks}, fw-apply-profile{profile=%t.samebindings.json})" 2>&1 | FileCheck %s --check-prefix=SAME
// SAME-NOT: warning
// SAME: fw.profile

func.func @main(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<256x256xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
                      outs(%f0 : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %ab : tensor<256x256xf32>
}
