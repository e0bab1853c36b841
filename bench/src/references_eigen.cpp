// The elementwise chain as one fused Eigen array expression (one pass, Eigen's
// vectorized exp and tanh). Eigen array expressions never use threads.
#include "references.h"

#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>

void ref_chain_eigen(const float *a, const float *b, const float *c, float *out, size_t n) {
  using Vec = Eigen::Array<float, Eigen::Dynamic, 1>;
  Eigen::Map<const Vec, Eigen::Aligned64> A(a, (Eigen::Index)n), B(b, (Eigen::Index)n),
      C(c, (Eigen::Index)n);
  Eigen::Map<Vec, Eigen::Aligned64> Out(out, (Eigen::Index)n);
  Out = ((A * B + C).exp() - A).tanh().max(0.0f) * B + 1.0f;
}
