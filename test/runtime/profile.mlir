// fw-run --profile-out: every kernel run is profiled (times, and counters from the PMU or,
// where the machine refuses them, the kernel's software counters) and added to a JSON
// file (docs/profile.md); a second run of the same build adds up; another build of the
// module replaces the figures with a warning; files that are not fw profiles, of another
// module or of another version are errors and stay untouched.
// RUN: %fwc %s --module-name=prof -o %t.fwb
// RUN: %fwc %s --module-name=prof -O0 -o %t.O0.fwb
// RUN: %fwc %s --module-name=other -o %t.other.fwb
// RUN: rm -f %t.json
// The kernel divides its work: its runs are divided among the CPU workers, three in the
// first run and two in the second (the profile keeps the most of either).
// RUN: %fw-run %t.fwb --benchmark=2 --workers=3 --profile-out=%t.json --print-max-elements=0 > /dev/null
// RUN: %fw-run %t.fwb --workers=2 --profile-out=%t.json --print-max-elements=0 > /dev/null
// RUN: %python %S/Inputs/check_profile.py %t.json | FileCheck %s
// CHECK: fw-profile 2 prof runs=2 cpu_workers=3
// CHECK: counters {{(hardware cycles,instructions,cache-misses,branch-misses|software task-clock-ns,page-faults,context-switches|none )}}
// CHECK: prof.prof_dispatch_0 cpu count=4 ordered=True histogram=4 counters=ok moved=nothing workgroups=3
//
// With the host tier capped below the working set of the task graph of test/e2e, weights
// come back from storage when a task starts (no prefetch): the profile counts those bytes.
// RUN: %fwc %S/../e2e/task_graph.mlir -o %t.tg.fwb
// RUN: rm -f %t.spill.json
// RUN: %fw-run %t.tg.fwb --devices=cpu --default-dim=1024 --tier-limits=host=5600KiB --no-prefetch --benchmark=2 --profile-out=%t.spill.json --print-max-elements=0 > /dev/null
// RUN: %python %S/Inputs/check_profile.py %t.spill.json | FileCheck %s --check-prefix=SPILL
// SPILL: task_graph.task_graph_dispatch_{{[0-9]}} cpu count=3 {{.*}} moved=storage->host={{[1-9][0-9]*}}
//
// RUN: cp %t.json %t.first.json
// RUN: %fw-run %t.O0.fwb --profile-out=%t.json --print-max-elements=0 2>&1 >/dev/null | FileCheck %s --check-prefix=BUILD
// BUILD: fw-run: warning: profile '{{.*}}.json' was made with another build of module 'prof' (0x{{[0-9a-f]+}}, this one 0x{{[0-9a-f]+}}): its figures are replaced
// RUN: %python %S/Inputs/check_profile.py %t.json | FileCheck %s --check-prefix=REPLACED
// REPLACED: fw-profile 2 prof runs=1
// Both builds come from the same source: the same source id, another build id.
// RUN: %python -c "import json,sys; a,b=(json.load(open(f))['module'] for f in sys.argv[1:]); print('source', 'same' if a['source_id']==b['source_id'] and int(a['source_id'],16) else 'different', 'build', 'same' if a['build_id']==b['build_id'] else 'different')" %t.first.json %t.json | FileCheck %s --check-prefix=IDS
// IDS: source same build different
//
// RUN: not %fw-run %t.other.fwb --profile-out=%t.json 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: fw-run: error: profile '{{.*}}.json': holds a profile of module 'prof', not of 'other' (not overwritten)
// RUN: echo '{"format": "fw-profile", "version": 7}' > %t.v7.json
// RUN: not %fw-run %t.fwb --profile-out=%t.v7.json 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: fw-run: error: profile '{{.*}}.v7.json': has format version 7; this fw-run writes 2 (not overwritten)
// RUN: echo 'results of last week' > %t.txt
// RUN: not %fw-run %t.fwb --profile-out=%t.txt 2>&1 | FileCheck %s --check-prefix=NOTPROFILE
// NOTPROFILE: fw-run: error: profile '{{.*}}.txt': exists and is not an fw profile (not overwritten)
// RUN: FileCheck %s --check-prefix=UNTOUCHED < %t.txt
// UNTOUCHED: results of last week
// A malformed profile of this very build is an error too.
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['tasks']=3; json.dump(d, open(sys.argv[2], 'w'))" %t.json %t.bad.json
// RUN: not %fw-run %t.O0.fwb --profile-out=%t.bad.json 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: fw-run: error: profile '{{.*}}.bad.json': has no "tasks" array (not overwritten)
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['tasks'][0]['workgroups']=-1; json.dump(d, open(sys.argv[2], 'w'))" %t.json %t.badwg.json
// RUN: not %fw-run %t.O0.fwb --profile-out=%t.badwg.json 2>&1 | FileCheck %s --check-prefix=BADWG
// BADWG: fw-run: error: profile '{{.*}}.badwg.json': has a malformed entry in "tasks" (not overwritten)
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['cpu_workers']='two'; json.dump(d, open(sys.argv[2], 'w'))" %t.json %t.badworkers.json
// RUN: not %fw-run %t.O0.fwb --profile-out=%t.badworkers.json 2>&1 | FileCheck %s --check-prefix=BADWORKERS
// BADWORKERS: fw-run: error: profile '{{.*}}.badworkers.json': has a malformed "cpu_workers" (not overwritten)
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['transfers']={'host->device': {'bytes': 'many'}}; json.dump(d, open(sys.argv[2], 'w'))" %t.json %t.badtransfers.json
// RUN: not %fw-run %t.O0.fwb --profile-out=%t.badtransfers.json 2>&1 | FileCheck %s --check-prefix=BADTRANSFERS
// BADTRANSFERS: fw-run: error: profile '{{.*}}.badtransfers.json': has a malformed "transfers" (not overwritten)
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['runs']=-5; json.dump(d, open(sys.argv[2], 'w'))" %t.json %t.badruns.json
// RUN: not %fw-run %t.O0.fwb --profile-out=%t.badruns.json 2>&1 | FileCheck %s --check-prefix=BADRUNS
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['runs']='x'; json.dump(d, open(sys.argv[2], 'w'))" %t.json %t.badruns2.json
// RUN: not %fw-run %t.O0.fwb --profile-out=%t.badruns2.json 2>&1 | FileCheck %s --check-prefix=BADRUNS
// BADRUNS: fw-run: error: profile '{{.*}}.json': has a malformed "runs" (not overwritten)
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['tasks'][0]['size_class']=2**32+15; json.dump(d, open(sys.argv[2], 'w'))" %t.json %t.badclass.json
// RUN: not %fw-run %t.O0.fwb --profile-out=%t.badclass.json 2>&1 | FileCheck %s --check-prefix=BADCLASS
// BADCLASS: fw-run: error: profile '{{.*}}.badclass.json': has a malformed entry in "tasks" (not overwritten)
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['tasks'][0]['seconds']={'total': 'x'}; json.dump(d, open(sys.argv[2], 'w'))" %t.json %t.badtype.json
// RUN: not %fw-run %t.O0.fwb --profile-out=%t.badtype.json 2>&1 | FileCheck %s --check-prefix=BADTYPE
// BADTYPE: fw-run: error: profile '{{.*}}.badtype.json': has a value of the wrong type (not overwritten)
// Keys missing where the reader looks: refused like any malformed file.
// RUN: echo '{"format": "fw-profile", "version": 2, "module": {"name": "prof"}}' > %t.nobuild.json
// RUN: not %fw-run %t.fwb --profile-out=%t.nobuild.json 2>&1 | FileCheck %s --check-prefix=NOBUILD
// NOBUILD: fw-run: error: profile '{{.*}}.nobuild.json': has no module name and build id (not overwritten)
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); del d['tasks'][0]['task']; json.dump(d, open(sys.argv[2], 'w'))" %t.json %t.notask.json
// RUN: not %fw-run %t.O0.fwb --profile-out=%t.notask.json 2>&1 | FileCheck %s --check-prefix=NOTASK
// NOTASK: fw-run: error: profile '{{.*}}.notask.json': has a malformed entry in "tasks" (not overwritten)
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['tasks'][0]['histogram']=[[2**32+3, 5]]; json.dump(d, open(sys.argv[2], 'w'))" %t.json %t.badbucket.json
// RUN: not %fw-run %t.O0.fwb --profile-out=%t.badbucket.json 2>&1 | FileCheck %s --check-prefix=BADBUCKET
// BADBUCKET: fw-run: error: profile '{{.*}}.badbucket.json': has a malformed histogram (not overwritten)
// A version that is no integer, however deep, or one beyond an int.
// RUN: %python -c "import sys; open(sys.argv[1], 'w').write('{\"format\": \"fw-profile\", \"version\": ' + '[' * 100000 + ']' * 100000 + '}')" %t.deep.json
// RUN: not %fw-run %t.fwb --profile-out=%t.deep.json 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: fw-run: error: profile '{{.*}}.deep.json': has no integer format version; this fw-run writes 2 (not overwritten)
// RUN: echo '{"format": "fw-profile", "version": 4294967298}' > %t.vbig.json
// RUN: not %fw-run %t.fwb --profile-out=%t.vbig.json 2>&1 | FileCheck %s --check-prefix=VBIG
// VBIG: fw-run: error: profile '{{.*}}.vbig.json': has format version 4294967298; this fw-run writes 2 (not overwritten)
// Counts at their largest stay there rather than wrapping to 0 (the key is spelled in two
// parts: lit would take the word for its tool).
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['runs']=2**64-1; d['tasks'][0]['c' 'ount']=2**64-1; json.dump(d, open(sys.argv[2], 'w'))" %t.json %t.full.json
// RUN: %fw-run %t.O0.fwb --profile-out=%t.full.json --print-max-elements=0 > /dev/null
// RUN: %python %S/Inputs/check_profile.py %t.full.json | FileCheck %s --check-prefix=FULL
// FULL: fw-profile 2 prof runs=18446744073709551615
// FULL: prof.prof_dispatch_0 cpu count=18446744073709551615
// RUN: not %fw-run %t.fwb --profile-out=%t.json --simulate=%S/Inputs/machine_cpu_gpu.json 2>&1 | FileCheck %s --check-prefix=SIM
// SIM: fw-run: error: --profile-out cannot be combined with --simulate

func.func @prof(%a: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = arith.addf %a, %a : tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
