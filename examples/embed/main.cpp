// Calls the two-layer perceptron of examples/mlp.mlir, compiled into this
// program by fw_add_module, on data of its own, and checks the result
// against plain C++ loops; then picks each row's class with a task of its own
// in the same task graph (fw::Runtime::submit).
#include "mlp.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

constexpr int64_t kBatch = 3, kIn = 784, kHidden = 256, kOut = 10;

std::vector<float> pattern(size_t n, float scale, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = scale * float(int((i * 7919 + seed * 104729) % 201) - 100) / 100.0f;
  return v;
}

// y = relu(relu(x w1 + b1) w2 + b2)
std::vector<float> reference(const std::vector<float> &x,
                             const std::vector<float> &w1,
                             const std::vector<float> &b1,
                             const std::vector<float> &w2,
                             const std::vector<float> &b2) {
  std::vector<float> h(kBatch * kHidden), y(kBatch * kOut);
  for (int64_t i = 0; i < kBatch; ++i)
    for (int64_t j = 0; j < kHidden; ++j) {
      double s = b1[j];
      for (int64_t k = 0; k < kIn; ++k)
        s += double(x[i * kIn + k]) * w1[k * kHidden + j];
      h[i * kHidden + j] = float(s > 0 ? s : 0);
    }
  for (int64_t i = 0; i < kBatch; ++i)
    for (int64_t j = 0; j < kOut; ++j) {
      double s = b2[j];
      for (int64_t k = 0; k < kHidden; ++k)
        s += double(h[i * kHidden + k]) * w2[k * kOut + j];
      y[i * kOut + j] = float(s > 0 ? s : 0);
    }
  return y;
}

int fail(const fw::Status &status) {
  std::fprintf(stderr, "embed_mlp: error: %s\n", status.message());
  return 1;
}

} // namespace

int main() {
  fw::Result<fw::Runtime> runtime = fw::Runtime::create();
  if (!runtime.ok())
    return fail(runtime.status());
  fw::Result<mlp::Module> model = mlp::Module::load(*runtime);
  if (!model.ok())
    return fail(model.status());

  std::vector<float> x = pattern(kBatch * kIn, 1.0f, 1);
  std::vector<float> w1 = pattern(kIn * kHidden, 0.05f, 2);
  std::vector<float> b1 = pattern(kHidden, 0.1f, 3);
  std::vector<float> w2 = pattern(kHidden * kOut, 0.1f, 4);
  std::vector<float> b2 = pattern(kOut, 0.1f, 5);

  auto X = fw::Buffer::fromVector<float>(*runtime, {kBatch, kIn}, x);
  auto W1 = fw::Buffer::fromVector<float>(*runtime, {kIn, kHidden}, w1);
  auto B1 = fw::Buffer::fromVector<float>(*runtime, {kHidden}, b1);
  auto W2 = fw::Buffer::fromVector<float>(*runtime, {kHidden, kOut}, w2);
  auto B2 = fw::Buffer::fromVector<float>(*runtime, {kOut}, b2);
  for (auto *b : {&X, &W1, &B1, &W2, &B2})
    if (!b->ok())
      return fail(b->status());

  fw::Result<std::vector<fw::Buffer>> results =
      model->main(*X, *W1, *B1, *W2, *B2);
  if (!results.ok())
    return fail(results.status());
  std::vector<float> y = (*results)[0].toVector<float>();
  std::vector<float> want = reference(x, w1, b1, w2, b2);

  double maxError = 0;
  for (int64_t i = 0; i < kBatch; ++i) {
    std::printf("y[%lld] =", (long long)i);
    for (int64_t j = 0; j < kOut; ++j) {
      std::printf(" %.4f", y[i * kOut + j]);
      maxError = std::fmax(maxError, std::fabs(y[i * kOut + j] - want[i * kOut + j]));
    }
    std::printf("\n");
  }
  std::printf("max |fw - reference| = %.3g\n", maxError);
  if (maxError > 1e-3) {
    std::fprintf(stderr, "embed_mlp: error: result differs from the reference\n");
    return 1;
  }
  // A task of our own on the worker threads: it reads the result, so it runs
  // after the model's tasks that write it (here already done).
  std::vector<int64_t> classes(kBatch, -1);
  fw::Result<fw::Task> argmax = runtime->submit(
      "argmax", {{(*results)[0], FW_ACCESS_READ}},
      [&classes](void *const *data, size_t) {
        const float *scores = static_cast<const float *>(data[0]);
        for (int64_t i = 0; i < kBatch; ++i)
          for (int64_t j = 0; j < kOut; ++j)
            if (classes[i] < 0 || scores[i * kOut + j] > scores[i * kOut + classes[i]])
              classes[i] = j;
      });
  if (!argmax.ok())
    return fail(argmax.status());
  if (fw::Status status = argmax->wait(); !status.ok())
    return fail(status);
  for (int64_t i = 0; i < kBatch; ++i) {
    int64_t best = 0;
    for (int64_t j = 1; j < kOut; ++j)
      if (want[i * kOut + j] > want[i * kOut + best])
        best = j;
    std::printf("class[%lld] = %lld\n", (long long)i, (long long)classes[i]);
    if (want[i * kOut + classes[i]] < want[i * kOut + best] - 1e-3) {
      std::fprintf(stderr, "embed_mlp: error: the argmax task picked a lower score\n");
      return 1;
    }
  }
  std::printf("embedded mlp matches the reference\n");
  return 0;
}
