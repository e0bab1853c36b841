// The header-only C++ API (fw/runtime.hpp).
#include "fw/runtime.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace {

using fw::Buffer;
using fw::Module;
using fw::Result;
using fw::Runtime;
using fw::Status;

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

std::vector<float> iota(size_t n, float base) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = base + float(i);
  return v;
}

class CppApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<Runtime> rt = Runtime::create();
    ASSERT_TRUE(rt.ok()) << rt.status().message();
    rt_ = *rt;
  }
  Module load(const char *flavour) {
    Result<Module> m = Module::loadFile(rt_, fwtest::fixturePath(flavour));
    EXPECT_TRUE(m.ok()) << m.status().message();
    return std::move(m).value();
  }
  Runtime rt_;
};

TEST(CppStatus, ValuesAndCopies) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_TRUE(bool(ok));
  EXPECT_EQ(ok.code(), FW_STATUS_OK);
  EXPECT_STREQ(ok.message(), "OK");
  Status error(FW_STATUS_NOT_FOUND, "no such thing");
  EXPECT_FALSE(error);
  EXPECT_EQ(error.code(), FW_STATUS_NOT_FOUND);
  EXPECT_STREQ(error.message(), "no such thing");
  EXPECT_EQ(error.toString(), "NOT_FOUND: no such thing");
  Status copy = error;
  EXPECT_STREQ(copy.message(), "no such thing");
  EXPECT_NE(copy.message(), error.message());  // an independent status object
  Status moved = std::move(copy);
  EXPECT_EQ(moved.code(), FW_STATUS_NOT_FOUND);
  fw_status_t raw = moved.release();
  EXPECT_TRUE(moved.ok());
  EXPECT_EQ(fw_status_code(raw), FW_STATUS_NOT_FOUND);
  fw_status_free(raw);
  EXPECT_EQ(fw_status_create(FW_STATUS_OK, "ignored"), nullptr);
}

TEST(CppResult, ValueOrStatus) {
  Result<int> value = 7;
  EXPECT_TRUE(value.ok());
  EXPECT_EQ(*value, 7);
  Result<int> error = Status(FW_STATUS_OUT_OF_RANGE, "too far");
  EXPECT_FALSE(error);
  EXPECT_EQ(error.status().code(), FW_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(error.value(), 0);  // a default value, not a crash
  Result<int> fromOk = Status();
  EXPECT_EQ(fromOk.status().code(), FW_STATUS_INTERNAL);
  Status taken = error.takeStatus();
  EXPECT_STREQ(taken.message(), "too far");
}

TEST_F(CppApiTest, HandlesKeepTheRuntimeAlive) {
  Buffer buffer;
  Module module;
  {
    Result<Runtime> rt = Runtime::create();
    ASSERT_TRUE(rt.ok());
    Result<Buffer> b = Buffer::fromVector<float>(*rt, {2, 4}, iota(8, 1));
    ASSERT_TRUE(b.ok()) << b.status().message();
    buffer = *b;
    Result<Module> m = Module::loadFile(*rt, fwtest::fixturePath("add"));
    ASSERT_TRUE(m.ok()) << m.status().message();
    module = std::move(*m);
  }  // every Runtime object is gone; the buffer and the module still share the runtime
  Result<std::vector<Buffer>> out = module.call("add", {buffer, buffer});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].toVector<float>(), (std::vector<float>{2, 4, 6, 8, 10, 12, 14, 16}));
}

TEST_F(CppApiTest, BufferCopiesShareAndMovesTransfer) {
  Result<Buffer> b = Buffer::create(rt_, FW_ELEMENT_TYPE_I32, {3});
  ASSERT_TRUE(b.ok()) << b.status().message();
  Buffer copy = *b;
  EXPECT_EQ(copy.get(), b->get());
  static_cast<int32_t *>(copy.data())[1] = 5;
  EXPECT_EQ(b->toVector<int32_t>(), (std::vector<int32_t>{0, 5, 0}));
  Buffer moved = std::move(copy);
  EXPECT_FALSE(copy);  // NOLINT(bugprone-use-after-move): moved-from is null
  EXPECT_EQ(moved.get(), b->get());
  moved = Buffer();
  EXPECT_EQ(b->rank(), 1u);  // still alive through the original
  EXPECT_EQ(b->dims(), std::vector<int64_t>{3});
  EXPECT_EQ(b->byteSize(), 12u);
  EXPECT_EQ(b->type().str(), "3xi32");
  // read<T>() says why when it cannot give the contents.
  Result<std::vector<int32_t>> values = b->read<int32_t>();
  ASSERT_TRUE(values.ok()) << values.status().message();
  EXPECT_EQ(*values, (std::vector<int32_t>{0, 5, 0}));
  Result<std::vector<float>> wrong = b->read<float>();
  EXPECT_FALSE(wrong.ok());
  EXPECT_TRUE(contains(wrong.status().message(), "the buffer holds i32, not f32"))
      << wrong.status().message();
}

TEST_F(CppApiTest, NullHandlesReportErrors) {
  Buffer none;
  EXPECT_FALSE(none);
  EXPECT_EQ(none.rank(), 0u);
  EXPECT_TRUE(none.dims().empty());
  EXPECT_EQ(none.data(), nullptr);
  EXPECT_TRUE(none.toVector<float>().empty());
  EXPECT_TRUE(contains(none.checkType<float>().message(), "the buffer is null"));
  Module empty;
  EXPECT_TRUE(empty.functions().empty());
  EXPECT_TRUE(contains(empty.lookup("add").status().message(), "module is NULL"));
  EXPECT_TRUE(contains(empty.call("add", {}).status().message(), "module is NULL"));
  EXPECT_TRUE(contains(empty.signature(size_t(0)).status().message(), "module is NULL"));
  Runtime noRuntime;
  Result<Buffer> b = Buffer::create(noRuntime, FW_ELEMENT_TYPE_F32, {2});
  EXPECT_TRUE(contains(b.status().message(), "runtime is NULL"));
  EXPECT_EQ(b->rank(), 0u);  // the value of an error is a null handle
  EXPECT_FALSE(Module::loadFile(noRuntime, fwtest::fixturePath("add")).ok());
  EXPECT_FALSE(Module::loadEmbedded(noRuntime, "add").ok());
  // A null argument is an error of the call, not a crash.
  Module m = load("add");
  Result<Buffer> a = Buffer::fromVector<float>(rt_, {1, 4}, iota(4, 0));
  EXPECT_TRUE(contains(m.call("add", {*a, Buffer()}).status().message(),
                       "argument 1 of @add is NULL"));
}

TEST_F(CppApiTest, LoadErrorsAreResults) {
  Result<Module> missing = Module::loadFile(rt_, "/nonexistent/model.fwb");
  EXPECT_EQ(missing.status().code(), FW_STATUS_IO);
  EXPECT_TRUE(contains(missing.status().message(), "/nonexistent/model.fwb: cannot open"));
  const char junk[8] = "garbage";
  EXPECT_TRUE(contains(Module::loadMemory(rt_, junk, sizeof(junk)).status().message(),
                       "not a .fwb file"));
  Result<Module> embedded = Module::loadEmbedded(rt_, "no_such_module");
  EXPECT_EQ(embedded.status().code(), FW_STATUS_NOT_FOUND);
  EXPECT_TRUE(contains(embedded.status().message(), "registered:"));
}

TEST_F(CppApiTest, CallAddThroughModule) {
  std::vector<uint8_t> bytes = fwtest::readFile(fwtest::fixturePath("add"));
  Result<Module> m = Module::loadMemory(rt_, bytes.data(), bytes.size());
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->name(), "add");
  EXPECT_EQ(m->functions(), std::vector<std::string>{"add"});
  Result<fw::Signature> signature = m->signature("add");
  ASSERT_TRUE(signature.ok());
  ASSERT_EQ(signature->args.size(), 2u);
  ASSERT_EQ(signature->results.size(), 1u);
  EXPECT_EQ(signature->args[1].str(), "?x4xf32");
  EXPECT_EQ(signature->results[0].dims, (std::vector<int64_t>{FW_DYNAMIC_DIM, 4}));
  EXPECT_EQ(*m->lookup("@add"), 0u);

  Result<Buffer> a = Buffer::fromVector<float>(rt_, {3, 4}, iota(12, 0));
  Result<Buffer> b = Buffer::fromVector<float>(rt_, {3, 4}, iota(12, 100));
  ASSERT_TRUE(a.ok() && b.ok());
  Result<std::vector<Buffer>> out = m->call("add", {*a, *b});
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 1u);
  const Buffer &sum = (*out)[0];
  EXPECT_EQ(sum.dims(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(sum.elementType(), FW_ELEMENT_TYPE_F32);
  std::vector<float> expected(12);
  for (size_t i = 0; i < 12; ++i) expected[i] = 100.0f + 2.0f * float(i);
  EXPECT_EQ(sum.toVector<float>(), expected);
  // By index, with a vector of arguments.
  Result<std::vector<Buffer>> again = m->call(*m->lookup("add"), std::vector<Buffer>{*a, *b});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[0].toVector<float>(), expected);
}

TEST_F(CppApiTest, AsyncCallsOverlapAndWait) {
  Module m = load("add");
  Result<Buffer> a = Buffer::fromVector<float>(rt_, {2, 4}, iota(8, 0));
  ASSERT_TRUE(a.ok());
  std::vector<Module::PendingCall> calls;
  for (int i = 0; i < 8; ++i) {
    Result<Module::PendingCall> call = m.callAsync("add", {*a, *a});
    ASSERT_TRUE(call.ok()) << call.status().message();
    calls.push_back(std::move(*call));
  }
  std::vector<float> expected(8);
  for (size_t i = 0; i < 8; ++i) expected[i] = 2.0f * float(i);
  for (Module::PendingCall &call : calls) {
    Result<std::vector<Buffer>> out = call.wait();
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(call.done());
    EXPECT_EQ((*out)[0].toVector<float>(), expected);
    EXPECT_FALSE(call.wait().ok());  // once only
  }
  EXPECT_TRUE(contains(m.callAsync("add", {*a}).status().message(), "expects 2 arguments"));
  EXPECT_TRUE(rt_.waitAll().ok());
  Result<fw_runtime_stats_t> stats = rt_.stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_GE(stats->tasks_executed, 8u);
  // A call dropped without waiting still completes before its handle goes.
  { Result<Module::PendingCall> dropped = m.callAsync("add", {*a, *a}); }
  // A detached one finishes on its own; waitAll covers it, and waiting is over.
  Result<Module::PendingCall> detached = m.callAsync("add", {*a, *a});
  ASSERT_TRUE(detached.ok());
  detached->detach();
  EXPECT_FALSE(detached->wait().ok());
  EXPECT_TRUE(rt_.waitAll().ok());
}

TEST_F(CppApiTest, RuntimeOptions) {
  fw_runtime_options_t options = {};
  options.num_workers = 3;
  options.scheduler = FW_SCHEDULER_WS;
  Result<Runtime> rt = Runtime::create(options);
  ASSERT_TRUE(rt.ok()) << rt.status().message();
  Result<fw_runtime_stats_t> stats = rt->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_STREQ(stats->scheduler, "ws");
  ASSERT_EQ(stats->num_devices, 1u);
  EXPECT_EQ(stats->devices[0].workers, 3u);
  options.tier_limits = "host=nonsense";
  EXPECT_TRUE(contains(Runtime::create(options).status().message(), "tier limits"));
}

TEST_F(CppApiTest, CallErrorsAreResults) {
  Module m = load("add");
  Result<Buffer> a = Buffer::fromVector<float>(rt_, {3, 4}, iota(12, 0));
  Result<Buffer> wide = Buffer::fromVector<float>(rt_, {3, 5}, iota(15, 0));
  Result<std::vector<Buffer>> wrongName = m.call("mul", {*a, *a});
  EXPECT_EQ(wrongName.status().code(), FW_STATUS_NOT_FOUND);
  EXPECT_TRUE(contains(wrongName.status().message(), "has no function @mul"));
  Result<std::vector<Buffer>> wrongShape = m.call("add", {*a, *wide});
  EXPECT_EQ(wrongShape.status().code(), FW_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(wrongShape.status().message(), "expected ?x4xf32, got 3x5xf32"))
      << wrongShape.status().message();
  Result<std::vector<Buffer>> wrongCount = m.call("add", {*a});
  EXPECT_TRUE(contains(wrongCount.status().message(), "expects 2 arguments, got 1"));
  EXPECT_TRUE(wrongCount->empty());
  EXPECT_FALSE(m.call(size_t(3), {}).ok());
}

template <typename T> void expectRoundTrip(Runtime &rt, const std::vector<T> &values) {
  Result<Buffer> b = Buffer::fromVector<T>(rt, {int64_t(values.size())}, values);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->elementType(), fw::ElementType<T>::value);
  EXPECT_TRUE(b->template checkType<T>().ok());
  EXPECT_EQ(b->template toVector<T>(), values);
}

TEST_F(CppApiTest, VectorRoundTrips) {
  expectRoundTrip<float>(rt_, {1.5f, -2, 3e10f});
  expectRoundTrip<double>(rt_, {1e300, -0.25});
  expectRoundTrip<int8_t>(rt_, {-128, 0, 127});
  expectRoundTrip<int16_t>(rt_, {-32768, 7});
  expectRoundTrip<int32_t>(rt_, {INT32_MIN, 1, INT32_MAX});
  expectRoundTrip<int64_t>(rt_, {INT64_MIN, INT64_MAX});
  expectRoundTrip<bool>(rt_, {true, false, true, true});
  expectRoundTrip<float>(rt_, {});
  Result<Buffer> half = Buffer::fromVector<fw::Half>(rt_, {2}, {{0x3C00}, {0xC000}});
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->elementType(), FW_ELEMENT_TYPE_F16);
  EXPECT_EQ(half->toVector<fw::Half>()[1].bits, 0xC000);
  Result<Buffer> f = Buffer::fromVector<float>(rt_, {2, 2}, {1, 2, 3, 4});
  EXPECT_TRUE(f->toVector<int32_t>().empty());  // wrong element type
  Status wrongType = f->checkType<int32_t>();
  EXPECT_EQ(wrongType.code(), FW_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(wrongType.message(), "the buffer holds f32, not i32"));
  Result<Buffer> wrongCount = Buffer::fromVector<float>(rt_, {2, 2}, {1, 2, 3});
  EXPECT_TRUE(contains(wrongCount.status().message(), "data_size 12 does not match the 16"));
}

// Counts its live copies: a task's body must be destroyed exactly once, with the task.
struct Tracked {
  static inline std::atomic<int> alive{0};
  Tracked() { ++alive; }
  Tracked(const Tracked &) { ++alive; }
  ~Tracked() { --alive; }
};

TEST_F(CppApiTest, TasksRunLambdasInDependencyOrder) {
  Result<Buffer> x = Buffer::fromVector<float>(rt_, {4}, {1, 2, 3, 4});
  Result<Buffer> y = Buffer::fromVector<float>(rt_, {4}, {0, 0, 0, 0});
  ASSERT_TRUE(x.ok() && y.ok());
  Tracked tracked;
  const float factor = 3;
  std::atomic<int> scaled{0};
  Result<fw::Task> scale = rt_.submit(
      "scale", {{*x, FW_ACCESS_READ}, {*y, FW_ACCESS_WRITE}},
      [factor, tracked, &scaled](void *const *data, size_t num) {
        ASSERT_EQ(num, 2u);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const float *in = static_cast<const float *>(data[0]);
        float *out = static_cast<float *>(data[1]);
        for (int i = 0; i < 4; ++i) out[i] = factor * in[i];
        scaled = 1;
      });
  ASSERT_TRUE(scale.ok()) << scale.status().message();
  // No buffer links these two: only the edge orders the check after the scaling.
  int seen = -1;
  fw::TaskOptions options;
  options.after = {&*scale};
  Result<fw::Task> check = rt_.submit(
      "check", {}, [&seen, &scaled](void *const *, size_t) { seen = scaled.load(); }, options);
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_TRUE(check->wait().ok());
  EXPECT_TRUE(scale->done());
  EXPECT_EQ(seen, 1);
  EXPECT_TRUE(rt_.waitAll().ok());
  EXPECT_EQ(y->toVector<float>(), (std::vector<float>{3, 6, 9, 12}));
  // Bodies go with their tasks: the handles hold them until released.
  EXPECT_EQ(Tracked::alive.load(), 2);
  scale = fw::Task();
  EXPECT_EQ(Tracked::alive.load(), 1);
}

TEST_F(CppApiTest, TaskErrorsAreResultsAndBodiesAreNotLeaked) {
  Result<Buffer> x = Buffer::fromVector<float>(rt_, {4}, {1, 2, 3, 4});
  ASSERT_TRUE(x.ok());
  {
    Tracked tracked;
    // An unknown access mode: refused, and the body destroyed with the failed submit.
    Result<fw::Task> bad = rt_.submit("bad", {{*x, fw_access_t(9)}},
                                      [tracked](void *const *, size_t) {});
    EXPECT_FALSE(bad.ok());
    EXPECT_TRUE(contains(bad.status().message(), "task 'bad': access 0 has an unknown mode 9"));
    // No implementation at all.
    Result<fw::Task> none = rt_.submit("none", {{*x, FW_ACCESS_READ}}, fw::TaskBody());
    EXPECT_TRUE(contains(none.status().message(), "task 'none' has no function"));
  }
  EXPECT_EQ(Tracked::alive.load(), 0);
  // A null Task reports errors.
  fw::Task null;
  EXPECT_FALSE(null.wait().ok());
  EXPECT_TRUE(null.done());
  // A body that runs and whose handle is dropped at once is destroyed once it ran.
  {
    Tracked tracked;
    Result<fw::Task> t = rt_.submit("ran", {{*x, FW_ACCESS_READ}},
                                    [tracked](void *const *, size_t) {});
    ASSERT_TRUE(t.ok());
  }
  EXPECT_TRUE(rt_.waitAll().ok());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Tracked::alive.load() != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(Tracked::alive.load(), 0);
}

// An exception that leaves a body fails its task with the exception's message; the
// runtime goes on.
TEST_F(CppApiTest, AnExceptionFailsItsTask) {
  Result<Buffer> x = Buffer::fromVector<float>(rt_, {4}, {1, 2, 3, 4});
  ASSERT_TRUE(x.ok());
  Result<fw::Task> t = rt_.submit("throws", {{*x, FW_ACCESS_READ_WRITE}},
                                  [](void *const *, size_t) { throw std::runtime_error("boom"); });
  ASSERT_TRUE(t.ok());
  Status failed = t->wait();
  EXPECT_FALSE(failed.ok());
  EXPECT_TRUE(contains(failed.message(), "task @throws: the task body threw: boom"))
      << failed.message();
  EXPECT_FALSE(rt_.waitAll().ok());  // the error, once
  Result<fw::Task> failing = rt_.submit("fails", {}, [](void *const *, size_t) {
    fw::failTask(Status(FW_STATUS_OUT_OF_RANGE, "index 9 of 4"));
  });
  ASSERT_TRUE(failing.ok());
  EXPECT_EQ(failing->wait().code(), FW_STATUS_OUT_OF_RANGE);
  EXPECT_FALSE(rt_.waitAll().ok());
  EXPECT_FALSE(fw::failTask(Status(FW_STATUS_INTERNAL, "not in a body")).ok());
  Result<fw::Task> fine = rt_.submit("fine", {}, [](void *const *, size_t) {});
  ASSERT_TRUE(fine.ok());
  EXPECT_TRUE(fine->wait().ok());
}

// run(): a synchronous task; done when it returns, ordered after earlier tasks on its
// buffers, its error returned; its body destroyed once, whether it ran or was refused.
TEST_F(CppApiTest, RunWaitsForItsTask) {
  Result<Buffer> x = Buffer::fromVector<float>(rt_, {4}, {1, 2, 3, 4});
  ASSERT_TRUE(x.ok());
  Result<fw::Task> slow = rt_.submit("slow", {{*x, FW_ACCESS_READ_WRITE}},
                                     [](void *const *data, size_t) {
                                       std::this_thread::sleep_for(
                                           std::chrono::milliseconds(20));
                                       static_cast<float *>(data[0])[0] = 10;
                                     });
  ASSERT_TRUE(slow.ok());
  float first = 0;
  {
    Tracked tracked;
    Status ran = rt_.run("read", {{*x, FW_ACCESS_READ}},
                         [&first, tracked](void *const *data, size_t) {
                           first = static_cast<const float *>(data[0])[0];
                         });
    EXPECT_TRUE(ran.ok()) << ran.message();
    EXPECT_EQ(first, 10.0f);  // after the slow writer, and done on return
    Status refused = rt_.run("bad", {{*x, fw_access_t(9)}}, [tracked](void *const *, size_t) {});
    EXPECT_TRUE(contains(refused.message(), "task 'bad': access 0 has an unknown mode 9"));
    Status failed =
        rt_.run("fails", {}, [](void *const *, size_t) { throw std::runtime_error("x"); });
    EXPECT_TRUE(contains(failed.message(), "task @fails: the task body threw: x"));
    EXPECT_FALSE(rt_.waitAll().ok());  // reported there too
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Tracked::alive.load() != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(Tracked::alive.load(), 0);
}

// TaskOptions::onDone: called with the outcome before the task is seen finished; the
// failure's message for a failed task.
TEST_F(CppApiTest, OnDoneGetsTheOutcome) {
  std::atomic<int> calls{0};
  std::string seen = "unset";
  fw::TaskOptions options;
  options.onDone = [&](const Status &status) {
    seen = status.ok() ? "OK" : status.message();
    ++calls;
  };
  Result<fw::Task> fine = rt_.submit("fine", {}, [](void *const *, size_t) {}, options);
  ASSERT_TRUE(fine.ok());
  EXPECT_TRUE(fine->wait().ok());
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(seen, "OK");
  Status failed = rt_.run(
      "throws", {}, [](void *const *, size_t) { throw std::runtime_error("boom"); }, options);
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(seen, "task @throws: the task body threw: boom");
  EXPECT_FALSE(rt_.waitAll().ok());
}

// Commutative updates through the C++ API: lambdas that each add into one buffer, then a
// reader after the group, which sees every addition.
TEST_F(CppApiTest, CommutativeUpdatesAddUp) {
  Result<Buffer> sum = Buffer::fromVector<int32_t>(rt_, {1}, {0});
  ASSERT_TRUE(sum.ok());
  for (int32_t i = 1; i <= 50; ++i) {
    Result<fw::Task> t =
        rt_.submit("add", {{*sum, FW_ACCESS_READ_WRITE_COMMUTE}},
                   [i](void *const *data, size_t) { static_cast<int32_t *>(data[0])[0] += i; });
    ASSERT_TRUE(t.ok()) << t.status().message();
  }
  int32_t seen = -1;
  Status read = rt_.run("read", {{*sum, FW_ACCESS_READ}}, [&](void *const *data, size_t) {
    seen = static_cast<const int32_t *>(data[0])[0];
  });
  EXPECT_TRUE(read.ok()) << read.message();
  EXPECT_EQ(seen, 1275);
}

TEST_F(CppApiTest, ReductionsAddUp) {
  Result<Buffer> sum = Buffer::fromVector<double>(rt_, {2}, {0.5, 0});
  ASSERT_TRUE(sum.ok());
  Status set = sum->setReduction(FW_REDUCTION_SUM);
  ASSERT_TRUE(set.ok()) << set.message();
  for (int i = 1; i <= 50; ++i) {
    Result<fw::Task> t = rt_.submit("part", {{*sum, FW_ACCESS_REDUCE}},
                                    [i](void *const *data, size_t) {
                                      static_cast<double *>(data[0])[0] += i;
                                      static_cast<double *>(data[0])[1] -= 1;
                                    });
    ASSERT_TRUE(t.ok()) << t.status().message();
  }
  Result<std::vector<double>> got = sum->read<double>();
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, (std::vector<double>{1275.5, -50}));
  Result<Buffer> half = Buffer::create(rt_, FW_ELEMENT_TYPE_F16, {1});
  ASSERT_TRUE(half.ok());
  EXPECT_TRUE(contains(half->setReduction(FW_REDUCTION_SUM).message(), "not built in"));
}

TEST_F(CppApiTest, WrapIsAView) {
  alignas(64) float storage[16 + 1] = {};
  float *data = storage + 1;  // element aligned, not 64-byte aligned
  for (int i = 0; i < 8; ++i) data[i] = float(i);
  Result<Buffer> view = Buffer::wrap(rt_, FW_ELEMENT_TYPE_F32, {2, 4}, data, 8 * sizeof(float));
  ASSERT_TRUE(view.ok()) << view.status().message();
  EXPECT_EQ(view->data(), data);
  Module m = load("add");
  Result<std::vector<Buffer>> out = m.call("add", {*view, *view});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].toVector<float>(), (std::vector<float>{0, 2, 4, 6, 8, 10, 12, 14}));
  Result<Buffer> misaligned = Buffer::wrap(rt_, FW_ELEMENT_TYPE_F32, {1},
                                           reinterpret_cast<char *>(data) + 1, 4);
  EXPECT_TRUE(contains(misaligned.status().message(), "not aligned"));
}

}  // namespace
