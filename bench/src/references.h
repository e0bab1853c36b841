// Reference implementations the fw results are compared with and timed
// against. Plain C loops live in references_c.c, the Eigen expression in
// references_eigen.cpp; all are compiled with -O3 -march=native.
#ifndef FW_BENCH_REFERENCES_H
#define FW_BENCH_REFERENCES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// C[M,N] = A[M,K] @ B[K,N] (row major) with cblas_sgemm.
void ref_sgemm(const float *a, const float *b, float *c, int m, int n, int k);
// out[i,j] = max(c[i,j] + bias[j], 0), in place on c: a separate pass after sgemm.
void ref_bias_relu(float *c, const float *bias, int m, int n);

// im2col of a 3x3, stride-1 convolution over x[h + 2][w + 2][c] (NHWC, one image):
// cols[(y * w + x)][(dy * 3 + dx) * c + ch] = x[y + dy][x + dx][ch].
void ref_im2col3x3(const float *x, float *cols, int h, int w, int c);

// out = max(tanh(exp(a * b + c) - a), 0) * b + 1 as 8 separate loops (8 passes),
// intermediates in tmp[0..6] (each n floats).
void ref_chain_unfused(const float *a, const float *b, const float *c, float *const *tmp,
                       float *out, size_t n);
// Softmax over each row of x[rows, cols].
void ref_softmax(const float *x, float *out, int rows, int cols);
// out[r] = sum_j x[r, j].
void ref_row_sum(const float *x, float *out, int rows, int cols);
// out[i, :] = table[ids[i], :] for rows of `cols` floats (a row copy per id).
void ref_gather(const float *table, const int64_t *ids, float *out, int64_t n, int cols);

#ifdef __cplusplus
}
// The same chain as one fused Eigen array expression.
void ref_chain_eigen(const float *a, const float *b, const float *c, float *out, size_t n);
#endif

#endif
