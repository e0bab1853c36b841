// RUN: %fw-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(fw-cpu-stop-at-failed-checks))' | FileCheck %s

/// A loop around a check's failure becomes an scf.while that also ends once
/// the kernel's flag is set; the flag starts false and each failure sets it.
/// Every other for loop stops too (its bounds may come from an access a
/// failed check replaced).
// CHECK-LABEL: func.func @range(
// CHECK-SAME: %[[X:.*]]: memref<8xf32>, %{{.*}}: memref<f32>, %[[LO:.*]]: index, %[[HI:.*]]: index, %[[WORD:.*]]: memref<i32>)
// CHECK: %[[STOPPED:.*]] = memref.alloca() : memref<i1>
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: memref.store %[[FALSE]], %[[STOPPED]][] : memref<i1>
// CHECK: %[[PLAIN:.*]]:2 = scf.while
// CHECK: memref.load %[[STOPPED]]
// CHECK: scf.condition
// CHECK: arith.addf
// CHECK: %[[R:.*]]:2 = scf.while (%[[I:.*]] = %[[LO]], %[[ACC:.*]] = %[[PLAIN]]#1) : (index, f32) -> (index, f32) {
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[I]], %[[HI]] : index
// CHECK: %[[FAILED:.*]] = memref.load %[[STOPPED]][] : memref<i1>
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[NOT:.*]] = arith.xori %[[FAILED]], %[[TRUE]] : i1
// CHECK: %[[GO:.*]] = arith.andi %[[IN]], %[[NOT]] : i1
// CHECK: scf.condition(%[[GO]]) %[[I]], %[[ACC]] : index, f32
// CHECK: } do {
// CHECK: ^bb0(%[[J:.*]]: index, %[[A:.*]]: f32):
// CHECK: scf.if
// CHECK: memref.atomic_rmw maxu %{{.*}}, %[[WORD]][]
// CHECK-NEXT: %[[TRUE2:.*]] = arith.constant true
// CHECK-NEXT: memref.store %[[TRUE2]], %[[STOPPED]][] : memref<i1>
// CHECK: %[[NEXT:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: scf.yield %[[NEXT]], %{{.*}} : index, f32
// CHECK: memref.store %[[R]]#1
func.func @range(%x: memref<8xf32>, %out: memref<f32>, %lo: index, %hi: index,
                 %word: memref<i32>) attributes {fw.error_word} {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %n = arith.constant 1 : i32
  %plain = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %z) -> f32 {
    %a = arith.addf %acc, %z : f32
    scf.yield %a : f32
  }
  %s = scf.for %i = %lo to %hi step %c1 iter_args(%acc = %plain) -> f32 {
    %ok = arith.cmpi ult, %i, %c8 : index
    %bad = arith.cmpi uge, %i, %c8 : index
    scf.if %bad {
      %old = memref.atomic_rmw maxu %n, %word[] : (i32, memref<i32>) -> i32
    }
    %e = scf.if %ok -> f32 {
      %v = memref.load %x[%i] : memref<8xf32>
      scf.yield %v : f32
    } else {
      scf.yield %z : f32
    }
    %a = arith.addf %acc, %e : f32
    scf.yield %a : f32
  }
  memref.store %s, %out[] : memref<f32>
  return
}

// -----

/// Nested loops both stop; an unsigned loop compares unsigned; a while loop
/// gets the flag in its condition; a forall first becomes loops.
// CHECK-LABEL: func.func @nested(
// CHECK: %[[STOPPED:.*]] = memref.alloca() : memref<i1>
// CHECK: scf.while
// CHECK: arith.cmpi ult
// CHECK: memref.load %[[STOPPED]]
// CHECK: } do {
// CHECK: scf.while
// CHECK: memref.load %[[STOPPED]]
// CHECK: } do {
// CHECK: memref.atomic_rmw
// CHECK: memref.store %{{.*}}, %[[STOPPED]]
// CHECK: scf.while
// CHECK: %[[MORE:.*]] = arith.cmpi ne
// CHECK: %[[FAILED:.*]] = memref.load %[[STOPPED]]
// CHECK: %[[NOT:.*]] = arith.xori %[[FAILED]]
// CHECK: %[[GO:.*]] = arith.andi %[[MORE]], %[[NOT]]
// CHECK: scf.condition(%[[GO]])
// CHECK: memref.atomic_rmw
// CHECK-NOT: scf.forall
// CHECK: scf.while
// CHECK: memref.load %[[STOPPED]]
// CHECK: memref.atomic_rmw
func.func @nested(%n: index, %word: memref<i32>) attributes {fw.error_word} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %bad = arith.constant true
  scf.for unsigned %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      scf.if %bad {
        %old = memref.atomic_rmw maxu %one, %word[] : (i32, memref<i32>) -> i32
      }
    }
  }
  %w = scf.while (%k = %c0) : (index) -> index {
    %more = arith.cmpi ne, %k, %n : index
    scf.condition(%more) %k : index
  } do {
  ^bb0(%k: index):
    %old = memref.atomic_rmw maxu %one, %word[] : (i32, memref<i32>) -> i32
    %k1 = arith.addi %k, %c1 : index
    scf.yield %k1 : index
  }
  scf.forall (%f) in (%n) {
    %old = memref.atomic_rmw maxu %one, %word[] : (i32, memref<i32>) -> i32
  }
  return
}

// -----

/// negative_: a kernel with checks outside loops, or without an error word,
/// is left as it is.
// CHECK-LABEL: func.func @straight(
// CHECK-NOT: memref.alloca
// CHECK: return
// CHECK-LABEL: func.func @no_word(
// CHECK: scf.for
// CHECK-NOT: scf.while
// CHECK: return
func.func @straight(%word: memref<i32>) attributes {fw.error_word} {
  %one = arith.constant 1 : i32
  %old = memref.atomic_rmw maxu %one, %word[] : (i32, memref<i32>) -> i32
  return
}
func.func @no_word(%n: index, %word: memref<i32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 {
    %old = memref.atomic_rmw maxu %one, %word[] : (i32, memref<i32>) -> i32
  }
  return
}

// -----

/// A parallel loop becomes a nest of for loops carrying its reductions
/// (combined in order, the accumulator first), which then stop; so does an
/// affine loop, lowered with the affine ops in it (index ops too).
// CHECK-LABEL: func.func @parallel(
// CHECK-SAME: %[[N:.*]]: index, %[[X:.*]]: memref<?xf32>
// CHECK-NOT: scf.parallel
// CHECK: %[[R:.*]]:3 = scf.while (%[[I:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}, %[[ACC2:.*]] = %{{.*}}) : (index, f32, f32) -> (index, f32, f32)
// CHECK: arith.cmpi slt, %[[I]], %[[N]]
// CHECK: scf.condition
// CHECK: } do {
// CHECK: ^bb0(%[[J:.*]]: index, %[[A:.*]]: f32, %[[A2:.*]]: f32):
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[J]]]
// CHECK: memref.atomic_rmw
// CHECK: %[[SUM:.*]] = arith.addf %[[A]], %[[V]] : f32
// CHECK: %[[MAX:.*]] = arith.maximumf %[[A2]], %[[V]] : f32
// CHECK: scf.yield %{{.*}}, %[[SUM]], %[[MAX]] : index, f32, f32
// CHECK: memref.store %[[R]]#1
// CHECK: memref.store %[[R]]#2
// CHECK-NOT: affine.
// CHECK: scf.while
// CHECK: memref.store %{{.*}}, %[[X]]
// CHECK: memref.atomic_rmw
// CHECK: return
func.func @parallel(%n: index, %x: memref<?xf32>, %out: memref<2xf32>,
                    %word: memref<i32>) attributes {fw.error_word} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %s:2 = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%z, %z) -> (f32, f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    %old = memref.atomic_rmw maxu %one, %word[] : (i32, memref<i32>) -> i32
    scf.reduce(%v, %v : f32, f32) {
    ^bb0(%a: f32, %b: f32):
      %q = arith.addf %a, %b : f32
      scf.reduce.return %q : f32
    }, {
    ^bb0(%a: f32, %b: f32):
      %q = arith.maximumf %a, %b : f32
      scf.reduce.return %q : f32
    }
  }
  memref.store %s#0, %out[%c0] : memref<2xf32>
  memref.store %s#1, %out[%c1] : memref<2xf32>
  affine.for %i = 0 to 4 {
    %l = affine.linearize_index [%i, %i] by (4, 4) : index
    memref.store %z, %x[%l] : memref<?xf32>
    %old = memref.atomic_rmw maxu %one, %word[] : (i32, memref<i32>) -> i32
  }
  return
}

// -----

/// Every while loop of a kernel with checks stops, with a check in it or not:
/// its values may come from an access a failed check replaced (a guarded
/// step of 0 that never reaches the goal).
// CHECK-LABEL: func.func @hops(
// CHECK: %[[STOPPED:.*]] = memref.alloca() : memref<i1>
// CHECK: memref.atomic_rmw
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: memref.store %[[TRUE]], %[[STOPPED]]
// CHECK: scf.while
// CHECK: %[[MORE:.*]] = arith.cmpi slt
// CHECK: %[[FAILED:.*]] = memref.load %[[STOPPED]][] : memref<i1>
// CHECK: %[[NOT:.*]] = arith.xori %[[FAILED]]
// CHECK: %[[GO:.*]] = arith.andi %[[MORE]], %[[NOT]] : i1
// CHECK: scf.condition(%[[GO]])
func.func @hops(%step: i64, %ok: i1, %word: memref<i32>) -> ()
    attributes {fw.error_word} {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i64
  %goal = arith.constant 100 : i64
  %bad = arith.constant true
  scf.if %bad {
    %old = memref.atomic_rmw maxu %one, %word[] : (i32, memref<i32>) -> i32
  }
  %s = arith.select %ok, %step, %zero : i64
  %r = scf.while (%at = %zero) : (i64) -> i64 {
    %more = arith.cmpi slt, %at, %goal : i64
    scf.condition(%more) %at : i64
  } do {
  ^bb0(%at: i64):
    %a = arith.addi %at, %s : i64
    scf.yield %a : i64
  }
  return
}

// -----

/// negative_: a kernel that emulates a GPU kernel's mapping keeps its loops,
/// as a GPU runs them.
// CHECK-LABEL: func.func @emulated(
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK-NOT: scf.while
// CHECK: return
func.func @emulated(%n: index, %word: memref<i32>)
    attributes {fw.error_word, fw.emulated_gpu} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 {
    %old = memref.atomic_rmw maxu %one, %word[] : (i32, memref<i32>) -> i32
  }
  return
}
