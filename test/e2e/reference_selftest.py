#!/usr/bin/env python3
"""Self-test of the numpy references (no fwc/fw-run needed).

Checks each reference against an independent formulation on small random
inputs: naive loops for conv and pooling, numpy built-ins for matmul and
reductions, invariants for softmax.  Prints "PASS reference_selftest".
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as R  # noqa: E402

rng = np.random.default_rng(1234)


def f32(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def check(name, cond):
    if not cond:
        print("FAIL reference_selftest: " + name)
        sys.exit(1)


a, b = f32(7, 5), f32(5, 3)
check("matmul", np.allclose(R.matmul(a, b)[0], a.astype(np.float64) @ b, rtol=1e-6, atol=1e-6))
check("matmul dtype", R.matmul(a, b)[0].dtype == np.float32)

x, w, bias = f32(4, 6), f32(6, 3), f32(3)
ref = R.matmul_bias_relu(x, w, bias)[0]
naive = np.array([[max(0.0, sum(float(x[i, k]) * float(w[k, j]) for k in range(6)) + float(bias[j]))
                   for j in range(3)] for i in range(4)])
check("matmul_bias_relu", np.allclose(ref, naive, rtol=1e-6, atol=1e-6) and (ref >= 0).all())

ba, bb = f32(3, 4, 5), f32(3, 5, 2)
check("batch_matmul", np.allclose(R.batch_matmul(ba, bb)[0], np.matmul(ba, bb), rtol=1e-5, atol=1e-6))

t = f32(2, 3, 4)
check("transpose", np.array_equal(R.transpose(t)[0], np.transpose(t, (2, 0, 1))))
check("transpose elem", R.transpose(t)[0][3, 1, 2] == t[1, 2, 3])

ca, cb = f32(5, 6), f32(6, 4)
check("chain", np.allclose(R.chain(ca, cb)[0], (ca @ cb).sum(axis=0), rtol=1e-5, atol=1e-5))

ea, eb = f32(3, 8), f32(8, lo=0.5, hi=2.0)
v = R.elementwise_broadcast(ea, eb)[0]
i, j = 2, 5
expect = np.tanh(float(ea[i, j]) * float(eb[j]) + 1) * np.exp(-float(ea[i, j])) + \
    np.sqrt(float(eb[j])) / (2 + np.log(float(eb[j])))
check("elementwise_broadcast", abs(v[i, j] - expect) < 1e-6)

ia = rng.integers(-1000, 1000, size=(4, 5), dtype=np.int32)
ib = rng.integers(-1000, 1000, size=(4, 5), dtype=np.int32)
r = R.elementwise_i32(ia, ib)[0]
check("elementwise_i32", r.dtype == np.int32 and
      all(r[p, q] == max(int(ia[p, q]) * int(ib[p, q]) + int(ia[p, q]), int(ib[p, q]) - 7)
          for p in range(4) for q in range(5)))

la = rng.integers(-3000000000, 3000000000, size=6, dtype=np.int64)
lb = rng.integers(-1000, 1000, size=6, dtype=np.int64)
r = R.elementwise_i64(la, lb)[0]
check("elementwise_i64", r.dtype == np.int64 and np.array_equal(r, np.minimum(la * lb, la - lb) + 3000000000))

q1, q2 = np.float32([0.25, 0.5, -1.0]), np.float32([0.25, 0.0, 1.0])
check("cmpf_i1", R.cmpf_i1(q1, q2)[0].tolist() == [False, True, False] and R.cmpf_i1(q1, q2)[0].dtype == np.bool_)

h1, h2 = f32(3, 4).astype(np.float16), f32(3, 4).astype(np.float16)
r = R.f16_add(h1, h2)[0]
check("f16_add", r.dtype == np.float16 and np.array_equal(r, h1 + h2))  # numpy's f16 add rounds correctly

p, s = R.two_results(ca, ca)
check("two_results", np.allclose(p, ca * ca, atol=1e-7) and np.allclose(s, 2 * ca.sum(axis=1), atol=1e-5))

m = f32(9, 11)
check("reduce_sum_lastaxis", np.allclose(R.reduce_sum_lastaxis(m)[0], m.sum(axis=1), rtol=1e-5, atol=1e-6))
check("reduce_max_axis0", np.array_equal(R.reduce_max_axis0(m)[0], m.max(axis=0)))
check("reduce_max_axis0 single row", np.array_equal(R.reduce_max_axis0(m[:1])[0], m[0]))

sm_in = f32(5, 16, lo=-4, hi=4)
sm = R.softmax(sm_in)[0]
check("softmax sums to 1", np.allclose(sm.sum(axis=-1), 1.0, atol=1e-6))
check("softmax positive", (sm > 0).all())
check("softmax order", np.array_equal(np.argsort(sm, axis=-1), np.argsort(sm_in, axis=-1)))
check("softmax shift invariant", np.allclose(R.softmax(sm_in + 100.0)[0], sm, atol=1e-6))
big = np.float32([[1000.0, 999.0, -1000.0]])
check("softmax stable", np.isfinite(R.softmax(big)[0]).all())

cx, cw = f32(2, 7, 6, 3), f32(3, 2, 3, 4)
check("conv stride 1 vs naive", np.allclose(R.conv2d_nhwc_hwcf(cx, cw)[0], R.conv2d_naive(cx, cw), atol=1e-5))
check("conv stride 1 shape", R.conv2d_nhwc_hwcf(cx, cw)[0].shape == (2, 5, 5, 4))
cx2 = f32(1, 9, 8, 3)
check("conv stride 2 vs naive", np.allclose(R.conv2d_stride2(cx2, cw)[0], R.conv2d_naive(cx2, cw, 2), atol=1e-5))
check("conv stride 2 shape", R.conv2d_stride2(cx2, cw)[0].shape == (1, 4, 4, 4))
one = np.zeros((1, 3, 3, 1), np.float32)
one[0, 1, 1, 0] = 1.0
kern = np.arange(9, dtype=np.float32).reshape(3, 3, 1, 1)
check("conv is correlation (no flip)", R.conv2d_nhwc_hwcf(one, kern)[0].item() == 4.0)

px = f32(2, 6, 6, 3)
pm = R.pooling_max(px)[0]
naive = np.array([[[[max(px[n, 2 * i + dy, 2 * j + dx, c] for dy in range(2) for dx in range(2))
                     for c in range(3)] for j in range(3)] for i in range(3)] for n in range(2)])
check("pooling_max", np.array_equal(pm, naive))

mx = f32(3, 784)
w1, b1, w2, b2 = f32(784, 256, lo=-.1, hi=.1), f32(256), f32(256, 10), f32(10)
y = R.mlp(mx, w1, b1, w2, b2)[0]
h = np.maximum(mx.astype(np.float64) @ w1 + b1, 0)
check("mlp", y.shape == (3, 10) and np.allclose(y, np.maximum(h @ w2 + b2, 0), rtol=1e-6, atol=1e-6))

ex = R.example_elementwise(ea, ea[0])[0]
check("example_elementwise", abs(ex[1, 2] - np.tanh(float(ea[1, 2]) * float(ea[0, 2]) + 1) * np.exp(-float(ea[1, 2]))) < 1e-6)

check("every case has a reference function", all(callable(c.fn) for c in R.CASES.values()))
print("PASS reference_selftest (%d cases registered)" % len(R.CASES))
