// Plain C references, compiled with -O3 -march=native (no -ffast-math: expf and
// tanhf are the libm functions, float sums are not reassociated).
#include "references.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

void ref_sgemm(const float *a, const float *b, float *c, int m, int n, int k) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}

void ref_bias_relu(float *c, const float *bias, int m, int n) {
  for (int i = 0; i < m; ++i) {
    float *row = c + (size_t)i * n;
    for (int j = 0; j < n; ++j)
      row[j] = fmaxf(row[j] + bias[j], 0.0f);
  }
}

void ref_im2col3x3(const float *x, float *cols, int h, int w, int c) {
  for (int y = 0; y < h; ++y)
    for (int xo = 0; xo < w; ++xo) {
      float *row = cols + ((size_t)y * w + xo) * 9 * c;
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx)
          memcpy(row + (dy * 3 + dx) * c, x + (((size_t)(y + dy) * (w + 2)) + xo + dx) * c,
                 (size_t)c * sizeof(float));
    }
}

void ref_chain_unfused(const float *a, const float *b, const float *c, float *const *tmp,
                       float *out, size_t n) {
  float *t1 = tmp[0], *t2 = tmp[1], *t3 = tmp[2], *t4 = tmp[3], *t5 = tmp[4], *t6 = tmp[5],
        *t7 = tmp[6];
  for (size_t i = 0; i < n; ++i) t1[i] = a[i] * b[i];
  for (size_t i = 0; i < n; ++i) t2[i] = t1[i] + c[i];
  for (size_t i = 0; i < n; ++i) t3[i] = expf(t2[i]);
  for (size_t i = 0; i < n; ++i) t4[i] = t3[i] - a[i];
  for (size_t i = 0; i < n; ++i) t5[i] = tanhf(t4[i]);
  for (size_t i = 0; i < n; ++i) t6[i] = fmaxf(t5[i], 0.0f);
  for (size_t i = 0; i < n; ++i) t7[i] = t6[i] * b[i];
  for (size_t i = 0; i < n; ++i) out[i] = t7[i] + 1.0f;
}

void ref_softmax(const float *x, float *out, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float *xr = x + (size_t)r * cols;
    float *yr = out + (size_t)r * cols;
    float m = -INFINITY;
    for (int j = 0; j < cols; ++j)
      m = fmaxf(m, xr[j]);
    float s = 0.0f;
    for (int j = 0; j < cols; ++j) {
      float e = expf(xr[j] - m);
      yr[j] = e;
      s += e;
    }
    for (int j = 0; j < cols; ++j)
      yr[j] = yr[j] / s;
  }
}

void ref_row_sum(const float *x, float *out, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float *xr = x + (size_t)r * cols;
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += xr[j];
    out[r] = s;
  }
}

void ref_gather(const float *table, const int64_t *ids, float *out, int64_t n, int cols) {
  for (int64_t i = 0; i < n; ++i)
    memcpy(out + i * cols, table + ids[i] * cols, (size_t)cols * sizeof(float));
}
