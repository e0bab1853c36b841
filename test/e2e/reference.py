"""Plain-numpy reference implementations for the end-to-end tests.

Every case is written from the mathematical definition of what the test
computes, NOT by transcribing the MLIR, so that a bug shared by the test IR
and the compiler cannot hide itself.  Floating-point references are computed in
float64 and rounded to the result type only at the end.

A case is a `Case` registered in CASES under the name used by `--case=` (and by
the lit test file of the same name).  `args` lists, per function argument, the
element type and the range the driver draws values from; shapes come from the
command line (`--arg-shapes`) so dynamic dimensions are chosen at run time.
`fn` takes the numpy inputs and returns a tuple of expected results (one per
function result, with the result's dtype).
"""

import numpy as np


class Arg:
    """One function argument: numpy dtype name and [lo, hi) value range.

    `step`, if given, rounds float values to multiples of it (so that two
    independently drawn tensors have many exactly equal elements, e.g. to tell
    `ogt` from `oge` in a comparison).
    """

    def __init__(self, dtype="float32", lo=-1.0, hi=1.0, step=None):
        self.dtype = np.dtype(dtype)
        self.lo = lo
        self.hi = hi
        self.step = step


class Case:
    def __init__(self, fn, args, rtol=1e-4, atol=1e-5):
        self.fn = fn
        self.args = args
        # rtol/atol may be numbers or callables taking the list of inputs
        # (used to scale tolerances with reduction lengths).
        self.rtol = rtol
        self.atol = atol

    def tolerances(self, inputs):
        rtol = self.rtol(inputs) if callable(self.rtol) else self.rtol
        atol = self.atol(inputs) if callable(self.atol) else self.atol
        return rtol, atol


F32 = "float32"
F16 = "float16"
I32 = "int32"
I64 = "int64"


def _f64(*xs):
    return [np.asarray(x, dtype=np.float64) for x in xs]


def _matmul_atol(k):
    # f32 accumulation of k products of O(1) magnitude: allow error ~ k * eps.
    return max(1e-5, 4e-7 * k)


# ---------------------------------------------------------------------------
# Linear algebra


def matmul(a, b):
    a, b = _f64(a, b)
    m, k = a.shape
    k2, n = b.shape
    assert k == k2
    c = np.zeros((m, n))
    for p in range(k):  # sum_k a[i,k] * b[k,j], as an explicit sum of outer products
        c += np.outer(a[:, p], b[p, :])
    return (c.astype(np.float32),)


def matmul_bias_relu(x, w, b):
    x, w, b = _f64(x, w, b)
    y = x @ w + b[None, :]
    return (np.maximum(y, 0.0).astype(np.float32),)


def batch_matmul(a, b):
    a, b = _f64(a, b)
    out = np.stack([a[i] @ b[i] for i in range(a.shape[0])])
    return (out.astype(np.float32),)


def matmul_transpose_b(a, b):
    # a (m, k) times the transpose of b (n, k)
    a, b = _f64(a, b)
    return ((a @ b.T).astype(np.float32),)


def matmul_transpose_a(a, b):
    # the transpose of a (k, m) times b (k, n)
    a, b = _f64(a, b)
    return ((a.T @ b).astype(np.float32),)


def matmul_accumulate(a, b, c):
    # c + a @ b: the contraction accumulates into its initial value
    a, b, c = _f64(a, b, c)
    return ((c + a @ b).astype(np.float32),)


def matmul_epilogue(x, w, bcol, brow, res):
    # tanh(max(x @ w + bcol[n] + brow[m], 0)) * 0.5 + res[m, n]
    x, w, bcol, brow, res = _f64(x, w, bcol, brow, res)
    y = x @ w + bcol[None, :] + brow[:, None]
    return ((np.tanh(np.maximum(y, 0.0)) * 0.5 + res).astype(np.float32),)


def matmul_prologues(a, b, h):
    # (a * 0.5) @ relu(b + float(h)) with h an f16 matrix shaped like b
    a, b, h = _f64(a, b, h)
    return (((a * 0.5) @ np.maximum(b + h, 0.0)).astype(np.float32),)


def softmax_of_product_exp(a, b):
    # exp(softmax(a * b) over the last axis)
    a, b = _f64(a, b)
    x = a * b
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (np.exp(e / e.sum(axis=-1, keepdims=True)).astype(np.float32),)


def transpose(x):
    # linalg.transpose permutation [2, 0, 1]: out[i, j, k] = x[j, k, i]
    x = np.asarray(x)
    d0, d1, d2 = x.shape
    out = np.empty((d2, d0, d1), dtype=x.dtype)
    for i in range(d2):
        out[i] = x[:, :, i]
    return (out,)


def mlp(x, w1, b1, w2, b2):
    x, w1, b1, w2, b2 = _f64(x, w1, b1, w2, b2)
    h = np.maximum(x @ w1 + b1, 0.0)
    y = np.maximum(h @ w2 + b2, 0.0)
    return (y.astype(np.float32),)


def convnet(x, k1, b1, k2, b2, w, bw):
    (c1,) = conv2d_nhwc_hwcf(x, k1)
    c1 = np.maximum(c1.astype(np.float64) + b1, 0.0)
    (c2,) = conv2d_nhwc_hwcf(c1, k2)
    c2 = np.maximum(c2.astype(np.float64) + b2, 0.0)
    mean = c2.sum(axis=(1, 2)) * np.float64(np.float32(0.0012755102))
    mean, w, bw = _f64(mean, w, bw)
    return ((mean @ w + bw).astype(np.float32),)


def attention(x, wq, wk, wv, wo):
    x, wq, wk, wv, wo = _f64(x, wq, wk, wv, wo)
    q, k, v = x @ wq, x @ wk, x @ wv
    s = (q @ k.T) * 0.125
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return (((p @ v) @ wo + x).astype(np.float32),)


def chain(a, b):
    # C = A @ B (MxN); T = C^T (NxM); out[n] = sum_m T[n, m]
    a, b = _f64(a, b)
    c = a @ b
    t = c.T
    return (t.sum(axis=1).astype(np.float32),)


def task_graph(x, w1, w2, w3, w4):
    # Four independent branches, an elementwise join, and a last dependent matmul.
    x, w1, w2, w3, w4 = _f64(x, w1, w2, w3, w4)
    y1, y2, y3, y4 = (np.tanh(x @ w) for w in (w1, w2, w3, w4))
    z = (y1 + y2) - y3 * y4
    return ((z @ w1).astype(np.float32),)


def batch_norm(x, gamma, beta):
    # Batch normalization with the batch's statistics (training mode): each
    # column is standardized over the rows, then scaled and shifted.
    x, gamma, beta = _f64(x, gamma, beta)
    mean = x.mean(axis=0)
    var = ((x - mean) ** 2).mean(axis=0)
    return ((gamma * (x - mean) / np.sqrt(var + 1e-5) + beta).astype(np.float32),)


# ---------------------------------------------------------------------------
# Elementwise


def elementwise_broadcast(a, b):
    # out[i, j] = tanh(a*b + 1) * exp(-a) + sqrt(b) / (2 + log(b)),  b broadcast over rows
    a, b = _f64(a, b)
    bb = b[None, :]
    out = np.tanh(a * bb + 1.0) * np.exp(-a) + np.sqrt(bb) / (2.0 + np.log(bb))
    return (out.astype(np.float32),)


def example_elementwise(a, b):
    # examples/elementwise.mlir: tanh(a*b + 1) * exp(-a), b broadcast over rows
    a, b = _f64(a, b)
    out = np.tanh(a * b[None, :] + 1.0) * np.exp(-a)
    return (out.astype(np.float32),)


def elementwise_i32(a, b):
    # out = max(a*b + a, b - 7)   (signed, no overflow for the input ranges used)
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    out = np.maximum(a * b + a, b - 7)
    assert np.all(np.abs(out) < 2**31)
    return (out.astype(np.int32),)


def elementwise_i64(a, b):
    # out = min(a * b, a - b) + 3000000000  (needs 64-bit arithmetic)
    a = [int(v) for v in np.asarray(a).ravel()]
    bl = [int(v) for v in np.asarray(b).ravel()]
    out = [min(x * y, x - y) + 3000000000 for x, y in zip(a, bl)]
    return (np.array(out, dtype=np.int64).reshape(np.asarray(b).shape),)


def cmpf_i1(a, b):
    # out = a > b (ordered), as a boolean tensor
    return (np.asarray(a) > np.asarray(b),)


def f16_add(a, b):
    # exact sum rounded once to f16 (what a correctly-rounded f16 add gives)
    a, b = _f64(a, b)
    return ((a + b).astype(np.float16),)


def two_results(a, b):
    # result 0: a * b elementwise; result 1: sum over the last axis of (a + b)
    a, b = _f64(a, b)
    return ((a * b).astype(np.float32), (a + b).sum(axis=-1).astype(np.float32))


def errors_ok(a, b):
    a, b = _f64(a, b)
    return ((a + b[None, :]).astype(np.float32),)


# ---------------------------------------------------------------------------
# Reductions


def reduce_sum_lastaxis(x):
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros(x.shape[0])
    for j in range(x.shape[1]):
        out += x[:, j]
    return (out.astype(np.float32),)


def reduce_max_axis0(x):
    x = np.asarray(x)
    out = x[0].copy()
    for i in range(1, x.shape[0]):
        out = np.maximum(out, x[i])
    return (out.astype(np.float32),)


def softmax(x):
    # numerically stable softmax over the last axis
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return ((e / e.sum(axis=-1, keepdims=True)).astype(np.float32),)


# ---------------------------------------------------------------------------
# Convolution / pooling (NHWC input, HWCF filter, no padding)


def conv2d_nhwc_hwcf(x, w, stride=1, dilation=(1, 1), strides=None):
    x, w = _f64(x, w)
    sy, sx = strides if strides else (stride, stride)
    dily, dilx = dilation
    n, h, wd, c = x.shape
    kh, kw, c2, f = w.shape
    assert c == c2
    oh = (h - dily * (kh - 1) - 1) // sy + 1
    ow = (wd - dilx * (kw - 1) - 1) // sx + 1
    out = np.zeros((n, oh, ow, f))
    for dy in range(kh):
        for dx in range(kw):
            # input pixels seen by filter tap (dy, dx) for every output position
            y0, x0 = dy * dily, dx * dilx
            patch = x[:, y0:y0 + sy * (oh - 1) + 1:sy, x0:x0 + sx * (ow - 1) + 1:sx, :]
            out += np.einsum("nhwc,cf->nhwf", patch, w[dy, dx])
    return (out.astype(np.float32),)


def conv2d_bias_relu_residual(x, w, b, res):
    # max(conv(x, w) + b[f], 0) + res
    (y,) = conv2d_nhwc_hwcf(x, w)
    y, b, res = _f64(y, b, res)
    return ((np.maximum(y + b, 0.0) + res).astype(np.float32),)


def conv2d_s21_d23(x, w):
    # strides (2, 1), dilations (2, 3)
    return conv2d_nhwc_hwcf(x, w, strides=(2, 1), dilation=(2, 3))


def conv2d_stride2(x, w):
    return conv2d_nhwc_hwcf(x, w, stride=2)


def conv2d_naive(x, w, stride=1):
    """Seven-loop definition; only used by the self-test."""
    n, h, wd, c = x.shape
    kh, kw, _, f = w.shape
    oh = (h - kh) // stride + 1
    ow = (wd - kw) // stride + 1
    out = np.zeros((n, oh, ow, f))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for o in range(f):
                    s = 0.0
                    for dy in range(kh):
                        for dx in range(kw):
                            for ci in range(c):
                                s += float(x[b, i * stride + dy, j * stride + dx, ci]) * float(w[dy, dx, ci, o])
                    out[b, i, j, o] = s
    return out


def pooling_max(x, window=2, stride=2):
    x = np.asarray(x)
    n, h, w, c = x.shape
    oh = (h - window) // stride + 1
    ow = (w - window) // stride + 1
    out = np.full((n, oh, ow, c), -np.inf, dtype=np.float32)
    for i in range(oh):
        for j in range(ow):
            win = x[:, i * stride:i * stride + window, j * stride:j * stride + window, :]
            out[:, i, j, :] = win.max(axis=(1, 2))
    return (out,)


# ---------------------------------------------------------------------------
# More ops (QA regression cases)


def pooling_nhwc_sum(x, window=2, stride=2):
    # out[n, i, j, c] = sum over the window of x[n, i*stride + dy, j*stride + dx, c]
    x = np.asarray(x, dtype=np.float64)
    n, h, w, c = x.shape
    oh = (h - window) // stride + 1
    ow = (w - window) // stride + 1
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            for dy in range(window):
                for dx in range(window):
                    out[:, i, j, :] += x[:, i * stride + dy, j * stride + dx, :]
    return (out.astype(np.float32),)


def pooling_nchw_max(x, window=3, stride=3):
    # out[n, c, i, j] = max over the window of x[n, c, i*stride + dy, j*stride + dx]
    x = np.asarray(x)
    n, c, h, w = x.shape
    oh = (h - window) // stride + 1
    ow = (w - window) // stride + 1
    out = np.full((n, c, oh, ow), -np.inf, dtype=np.float32)
    for i in range(oh):
        for j in range(ow):
            for dy in range(window):
                for dx in range(window):
                    out[:, :, i, j] = np.maximum(out[:, :, i, j],
                                                 x[:, :, i * stride + dy, j * stride + dx])
    return (out,)


def conv2d_nchw_fchw(x, w):
    # out[n, f, i, j] = sum_{c, dy, dx} x[n, c, i + dy, j + dx] * w[f, c, dy, dx]
    x, w = _f64(x, w)
    n, c, h, wd = x.shape
    f, c2, kh, kw = w.shape
    assert c == c2
    oh, ow = h - kh + 1, wd - kw + 1
    out = np.zeros((n, f, oh, ow))
    for dy in range(kh):
        for dx in range(kw):
            patch = x[:, :, dy:dy + oh, dx:dx + ow]
            out += np.einsum("nchw,fc->nfhw", patch, w[:, :, dy, dx])
    return (out.astype(np.float32),)


def depthwise_conv2d_nhwc_hwc(x, w):
    # out[n, i, j, c] = sum_{dy, dx} x[n, i + dy, j + dx, c] * w[dy, dx, c]
    x, w = _f64(x, w)
    n, h, wd, c = x.shape
    kh, kw, c2 = w.shape
    assert c == c2
    oh, ow = h - kh + 1, wd - kw + 1
    out = np.zeros((n, oh, ow, c))
    for dy in range(kh):
        for dx in range(kw):
            out += x[:, dy:dy + oh, dx:dx + ow, :] * w[dy, dx, :][None, None, None, :]
    return (out.astype(np.float32),)


def reduce_sum_dims02(x):
    # out[j] = sum_{i, k} x[i, j, k]
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros(x.shape[1])
    for i in range(x.shape[0]):
        for k in range(x.shape[2]):
            out += x[i, :, k]
    return (out.astype(np.float32),)


def reduce_sum_all(x):
    # rank-0 result: the sum of every element
    return (np.array(np.asarray(x, dtype=np.float64).sum(), dtype=np.float32),)


def sum_and_max_rows(x):
    # one generic with two reduction outputs: row sums (init 0) and row maxima (init -inf)
    x = np.asarray(x, dtype=np.float64)
    s = np.zeros(x.shape[0])
    m = np.full(x.shape[0], -np.inf)
    for j in range(x.shape[1]):
        s += x[:, j]
        m = np.maximum(m, x[:, j])
    return (s.astype(np.float32), m.astype(np.float32))


def tensor_arith(a, b):
    # arith/math ops applied directly to tensors: exp(a + b) * a - b / 2
    a, b = _f64(a, b)
    return ((np.exp(a + b) * a - b / 2.0).astype(np.float32),)


def select_i1(c, a, b):
    # arith.select on tensors with an i1 condition tensor
    return (np.where(np.asarray(c, dtype=np.bool_), a, b).astype(np.int32),)


def rank0_add(a, b):
    a, b = _f64(a, b)
    return (np.array(a + b, dtype=np.float32),)


def int_divrem(a, b):
    # signed division flavours: truncating quotient and remainder, floor and ceiling quotients
    qs, rs, fs, cs = [], [], [], []
    for x, y in zip(np.asarray(a).ravel().tolist(), np.asarray(b).ravel().tolist()):
        q = abs(x) // abs(y) * (1 if (x >= 0) == (y > 0) else -1)  # rounds toward zero
        qs.append(q)
        rs.append(x - q * y)
        fs.append(x // y)  # Python // rounds toward -inf
        cs.append(-((-x) // y))
    shape = np.asarray(a).shape
    return tuple(np.array(v, dtype=np.int32).reshape(shape) for v in (qs, rs, fs, cs))


def casts(a, x, h):
    # a: i32, x: f32, h: f16
    a = np.asarray(a)
    x = np.asarray(x)
    h = np.asarray(h)
    sitofp = a.astype(np.float64).astype(np.float32)
    fptosi = np.trunc(x.astype(np.float64)).astype(np.int32)  # rounds toward zero
    truncf = x.astype(np.float64).astype(np.float16)  # round to nearest even
    extf = h.astype(np.float32)  # exact
    extsi = a.astype(np.int64)
    low_bit = (a.astype(np.int64) & 1).astype(np.bool_)  # trunci to i1 keeps bit 0
    return (sitofp, fptosi, truncf, extf, extsi, low_bit)


def tensor_pad_slice(x):
    # pad x (?x6) with two columns of 7.0 on the left, double it, then take every second
    # column starting at 0
    x = np.asarray(x, dtype=np.float64)
    n, w = x.shape
    p = np.full((n, w + 2), 7.0)
    p[:, 2:] = x
    p = 2.0 * p
    return (p[:, 0::2].astype(np.float32),)


def concat_cols_tanh(a, b):
    # concatenate along the (static) last axis, then tanh
    a, b = _f64(a, b)
    return (np.tanh(np.concatenate([a, b], axis=1)).astype(np.float32),)


def insert_block(a, b):
    # a copy of a (8x8) with b (2x3) written at rows 1..2, columns 2..4
    out = np.array(a, dtype=np.float32, copy=True)
    for i in range(2):
        for j in range(3):
            out[1 + i, 2 + j] = b[i, j]
    return (out,)


def identity_i64(a):
    return (np.asarray(a).copy(),)


def same_twice(a):
    a = np.asarray(a)
    return (a.copy(), a.copy())


# ---------------------------------------------------------------------------

def flatten_exp(a):
    # exp of a (n, 3, 4) tensor flattened to (n, 12).
    (x,) = _f64(a)
    return (np.exp(x.reshape(x.shape[0], -1)).astype(np.float32),)


def pad_top(a):
    # One row of zeros above a (n, 6) matrix, dropping nothing: (n + 1, 6).
    (x,) = _f64(a)
    out = np.zeros((x.shape[0] + 1, x.shape[1]))
    out[1:, :] = x
    return (out.astype(np.float32),)


CASES = {
    "flatten_exp": Case(flatten_exp, [Arg(F32)]),
    "pad_top": Case(pad_top, [Arg(F32)], rtol=0, atol=0),
    "conv_fixed_out": Case(conv2d_nhwc_hwcf, [Arg(F32), Arg(F32)], atol=1e-5),
    "matmul": Case(matmul, [Arg(F32), Arg(F32)],
                   atol=lambda a: _matmul_atol(a[0].shape[1])),
    "matmul_dynamic": Case(matmul, [Arg(F32), Arg(F32)],
                           atol=lambda a: _matmul_atol(a[0].shape[1])),
    "matmul_bias_relu": Case(matmul_bias_relu, [Arg(F32), Arg(F32), Arg(F32)],
                             atol=lambda a: _matmul_atol(a[0].shape[1])),
    "batch_matmul": Case(batch_matmul, [Arg(F32), Arg(F32)],
                         atol=lambda a: _matmul_atol(a[0].shape[2])),
    "matmul_transpose_b": Case(matmul_transpose_b, [Arg(F32), Arg(F32)],
                               atol=lambda a: _matmul_atol(a[0].shape[1])),
    "matmul_transpose_a": Case(matmul_transpose_a, [Arg(F32), Arg(F32)],
                               atol=lambda a: _matmul_atol(a[0].shape[0])),
    "matmul_accumulate": Case(matmul_accumulate, [Arg(F32), Arg(F32), Arg(F32)],
                              atol=lambda a: _matmul_atol(a[0].shape[1])),
    "matmul_epilogue": Case(matmul_epilogue, [Arg(F32), Arg(F32), Arg(F32), Arg(F32), Arg(F32)],
                            atol=lambda a: _matmul_atol(a[0].shape[1])),
    "matmul_prologues": Case(matmul_prologues, [Arg(F32), Arg(F32), Arg(F16)],
                             atol=lambda a: _matmul_atol(a[0].shape[1])),
    "softmax_of_product_exp": Case(softmax_of_product_exp, [Arg(F32), Arg(F32)],
                                   rtol=1e-5, atol=1e-6),
    "transpose": Case(transpose, [Arg(F32)], rtol=0.0, atol=0.0),
    "convnet": Case(convnet, [Arg(F32), Arg(F32, -0.2, 0.2), Arg(F32, -0.1, 0.1),
                              Arg(F32, -0.1, 0.1), Arg(F32, -0.1, 0.1), Arg(F32), Arg(F32)],
                    rtol=1e-4, atol=1e-4),
    "attention": Case(attention, [Arg(F32), Arg(F32, -0.1, 0.1), Arg(F32, -0.1, 0.1),
                                  Arg(F32, -0.1, 0.1), Arg(F32, -0.1, 0.1)],
                      rtol=1e-4, atol=1e-4),
    "mlp": Case(mlp, [Arg(F32), Arg(F32, -0.1, 0.1), Arg(F32, -0.1, 0.1),
                      Arg(F32, -0.2, 0.2), Arg(F32, -0.2, 0.2)],
                atol=1e-4),
    "chain": Case(chain, [Arg(F32), Arg(F32)],
                  atol=lambda a: _matmul_atol(a[0].shape[1] * a[0].shape[0])),
    "task_graph": Case(task_graph, [Arg(F32), Arg(F32, -0.1, 0.1), Arg(F32, -0.1, 0.1),
                                    Arg(F32, -0.1, 0.1), Arg(F32, -0.1, 0.1)], atol=1e-4),
    "batch_norm": Case(batch_norm, [Arg(F32), Arg(F32, 0.5, 2.0), Arg(F32)], atol=1e-4),
    "elementwise_broadcast": Case(elementwise_broadcast,
                                  [Arg(F32, -1.0, 1.0), Arg(F32, 0.5, 2.0)]),
    "example_elementwise": Case(example_elementwise,
                                [Arg(F32, -1.0, 1.0), Arg(F32, -1.0, 1.0)]),
    "elementwise_i32": Case(elementwise_i32, [Arg(I32, -1000, 1000), Arg(I32, -1000, 1000)],
                            rtol=0, atol=0),
    "elementwise_i64": Case(elementwise_i64,
                            [Arg(I64, -3000000000, 3000000000), Arg(I64, -1000, 1000)],
                            rtol=0, atol=0),
    "cmpf_i1": Case(cmpf_i1, [Arg(F32, -1.0, 1.0, step=0.25), Arg(F32, -1.0, 1.0, step=0.25)],
                    rtol=0, atol=0),
    "f16_add": Case(f16_add, [Arg(F16, -4.0, 4.0), Arg(F16, -4.0, 4.0)],
                    rtol=1e-3, atol=1e-3),
    "two_results": Case(two_results, [Arg(F32), Arg(F32)]),
    "errors_ok": Case(errors_ok, [Arg(F32), Arg(F32)]),
    "reduce_sum_lastaxis": Case(reduce_sum_lastaxis, [Arg(F32)],
                                atol=lambda a: _matmul_atol(a[0].shape[-1])),
    "reduce_max_axis0": Case(reduce_max_axis0, [Arg(F32)], rtol=0, atol=0),
    "softmax": Case(softmax, [Arg(F32, -4.0, 4.0)], rtol=1e-4, atol=1e-6),
    "conv2d": Case(conv2d_nhwc_hwcf, [Arg(F32), Arg(F32)],
                   atol=lambda a: _matmul_atol(a[1].shape[0] * a[1].shape[1] * a[1].shape[2])),
    "conv2d_bias_relu_residual": Case(conv2d_bias_relu_residual,
                                      [Arg(F32), Arg(F32), Arg(F32), Arg(F32)],
                                      atol=lambda a: _matmul_atol(a[1].shape[0] * a[1].shape[1] * a[1].shape[2])),
    "conv2d_s21_d23": Case(conv2d_s21_d23, [Arg(F32), Arg(F32)],
                           atol=lambda a: _matmul_atol(a[1].shape[0] * a[1].shape[1] * a[1].shape[2])),
    "conv2d_stride2": Case(conv2d_stride2, [Arg(F32), Arg(F32)],
                           atol=lambda a: _matmul_atol(a[1].shape[0] * a[1].shape[1] * a[1].shape[2])),
    "pooling_max": Case(pooling_max, [Arg(F32)], rtol=0, atol=0),
    "softmax_named": Case(softmax, [Arg(F32, -4.0, 4.0)], rtol=1e-4, atol=1e-6),
    "pooling_nhwc_sum": Case(pooling_nhwc_sum, [Arg(F32)], atol=1e-5),
    "pooling_nchw_max": Case(pooling_nchw_max, [Arg(F32)], rtol=0, atol=0),
    "conv2d_nchw_fchw": Case(conv2d_nchw_fchw, [Arg(F32), Arg(F32)],
                             atol=lambda a: _matmul_atol(a[1].shape[1] * a[1].shape[2] * a[1].shape[3])),
    "depthwise_conv2d": Case(depthwise_conv2d_nhwc_hwc, [Arg(F32), Arg(F32)],
                             atol=lambda a: _matmul_atol(a[1].shape[0] * a[1].shape[1])),
    "conv2d_dynamic": Case(conv2d_nhwc_hwcf, [Arg(F32), Arg(F32)],
                           atol=lambda a: _matmul_atol(a[1].shape[0] * a[1].shape[1] * a[1].shape[2])),
    "matmul_fully_dynamic": Case(matmul, [Arg(F32), Arg(F32)],
                                 atol=lambda a: _matmul_atol(a[0].shape[1])),
    "reduce_sum_dims02": Case(reduce_sum_dims02, [Arg(F32)],
                              atol=lambda a: _matmul_atol(a[0].shape[0] * a[0].shape[2])),
    "reduce_sum_all": Case(reduce_sum_all, [Arg(F32)],
                           atol=lambda a: _matmul_atol(a[0].size)),
    "sum_and_max_rows": Case(sum_and_max_rows, [Arg(F32)],
                             atol=lambda a: _matmul_atol(a[0].shape[1])),
    "tensor_arith": Case(tensor_arith, [Arg(F32), Arg(F32)]),
    "select_i1": Case(select_i1, [Arg("bool"), Arg(I32, -1000, 1000), Arg(I32, -1000, 1000)],
                      rtol=0, atol=0),
    "rank0_add": Case(rank0_add, [Arg(F32), Arg(F32)]),
    "int_divrem_pos": Case(int_divrem, [Arg(I32, -100000, 100000), Arg(I32, 1, 100)],
                           rtol=0, atol=0),
    "int_divrem_neg": Case(int_divrem, [Arg(I32, -100000, 100000), Arg(I32, -100, 0)],
                           rtol=0, atol=0),
    "casts": Case(casts, [Arg(I32, -100000, 100000), Arg(F32, -300.0, 300.0),
                          Arg(F16, -60000.0, 60000.0)], rtol=0, atol=0),
    "tensor_pad_slice": Case(tensor_pad_slice, [Arg(F32)], rtol=0, atol=0),
    "concat_cols_tanh": Case(concat_cols_tanh, [Arg(F32), Arg(F32)]),
    "insert_block": Case(insert_block, [Arg(F32), Arg(F32)], rtol=0, atol=0),
    "identity_i64": Case(identity_i64, [Arg(I64, -3000000000, 3000000000)], rtol=0, atol=0),
    "same_twice": Case(same_twice, [Arg(F32)], rtol=0, atol=0),
}
