// fw runtime: header-only C++17 API over the C API of fw/runtime.h.
//
// Errors are values, as in C: fallible calls return a `Status` or a `Result<T>` (a value
// or a Status); nothing throws. Handles are RAII: `Runtime` destroys its runtime when its
// last copy and every `Buffer` and `Module` made from it are gone (they share it), and
// `Buffer`/`Module` copies retain the same object (`fw_*_retain`), moves transfer it. A
// default-constructed (null) handle is valid to use: its calls return errors or empty
// values, never crash.
//
//   fw::Result<fw::Runtime> rt = fw::Runtime::create();
//   fw::Result<fw::Module> m = fw::Module::loadFile(*rt, "add.fwb");
//   fw::Result<fw::Buffer> a = fw::Buffer::fromVector<float>(*rt, {2, 4}, values);
//   fw::Result<std::vector<fw::Buffer>> out = m->call("add", {*a, *a});
//   if (!out.ok()) std::fprintf(stderr, "%s\n", out.status().message());
//   std::vector<float> sum = (*out)[0].toVector<float>();
#ifndef FW_RUNTIME_HPP_
#define FW_RUNTIME_HPP_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fw/runtime.h"

namespace fw {

//===----------------------------------------------------------------------===//
// Status and Result
//===----------------------------------------------------------------------===//

/// Owns an fw_status_t: OK (null) or an error with a code and a message.
class Status {
public:
  Status() = default;
  /// Takes ownership of `status`.
  explicit Status(fw_status_t status) noexcept : status_(status) {}
  Status(fw_status_code_t code, const std::string &message)
      : status_(fw_status_create(code, message.c_str())) {}
  Status(const Status &other)
      : status_(other.ok() ? FW_OK : fw_status_create(other.code(), other.message())) {}
  Status(Status &&other) noexcept : status_(other.release()) {}
  Status &operator=(Status other) noexcept {
    std::swap(status_, other.status_);
    return *this;
  }
  ~Status() { fw_status_free(status_); }

  bool ok() const { return status_ == FW_OK; }
  explicit operator bool() const { return ok(); }
  fw_status_code_t code() const { return fw_status_code(status_); }
  /// "OK" when ok; valid while this Status is alive.
  const char *message() const { return fw_status_message(status_); }
  /// "INVALID_ARGUMENT: message"
  std::string toString() const {
    return ok() ? "OK" : std::string(fw_status_code_name(code())) + ": " + message();
  }
  /// Hands the fw_status_t to the caller (who frees it); leaves this Status OK.
  fw_status_t release() { return std::exchange(status_, FW_OK); }

private:
  fw_status_t status_ = FW_OK;
};

/// A value of type T or the Status that explains why there is none.
template <typename T> class Result {
public:
  Result(const T &value) : value_(value) {}
  Result(T &&value) : value_(std::move(value)) {}
  /// An error; an OK status without a value becomes an INTERNAL error.
  Result(Status status) : status_(std::move(status)) {
    if (status_.ok())
      status_ = Status(FW_STATUS_INTERNAL, "fw::Result made from an OK status");
  }

  bool ok() const { return status_.ok(); }
  explicit operator bool() const { return ok(); }
  const Status &status() const { return status_; }
  /// Moves the status out (the error of a failed Result, to return it further).
  Status takeStatus() { return std::move(status_); }

  /// The value. Check ok() first: on an error a default-constructed T (a null handle,
  /// an empty vector) is returned where T has one; otherwise the program aborts. On a
  /// temporary Result they return the value itself (moved out), so that
  /// `for (float v : *buffer.toVector<float>())` does not refer to a destroyed Result.
  T &value() & { return get(); }
  const T &value() const & { return get(); }
  T value() && { return std::move(get()); }
  T &operator*() & { return get(); }
  const T &operator*() const & { return get(); }
  T operator*() && { return std::move(get()); }
  T *operator->() { return &get(); }
  const T *operator->() const { return &get(); }

private:
  T &get() const {
    if (!value_) {
      if constexpr (std::is_default_constructible_v<T>) {
        value_.emplace();
      } else {
        std::fprintf(stderr, "fw::Result::value() of an error: %s\n", status_.message());
        std::abort();
      }
    }
    return *value_;
  }

  mutable std::optional<T> value_;
  Status status_;
};

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// IEEE half and bfloat16 values, stored as their bits.
struct Half {
  uint16_t bits = 0;
};
struct BFloat16 {
  uint16_t bits = 0;
};

/// ElementType<T>::value is the fw_element_type_t of C++ type T.
template <typename T> struct ElementType;
#define FW_ELEMENT_TYPE_TRAIT(T, E)                                                     \
  template <> struct ElementType<T> {                                                  \
    static constexpr fw_element_type_t value = E;                                       \
  }
FW_ELEMENT_TYPE_TRAIT(float, FW_ELEMENT_TYPE_F32);
FW_ELEMENT_TYPE_TRAIT(double, FW_ELEMENT_TYPE_F64);
FW_ELEMENT_TYPE_TRAIT(Half, FW_ELEMENT_TYPE_F16);
FW_ELEMENT_TYPE_TRAIT(BFloat16, FW_ELEMENT_TYPE_BF16);
FW_ELEMENT_TYPE_TRAIT(bool, FW_ELEMENT_TYPE_I1);
FW_ELEMENT_TYPE_TRAIT(int8_t, FW_ELEMENT_TYPE_I8);
FW_ELEMENT_TYPE_TRAIT(int16_t, FW_ELEMENT_TYPE_I16);
FW_ELEMENT_TYPE_TRAIT(int32_t, FW_ELEMENT_TYPE_I32);
FW_ELEMENT_TYPE_TRAIT(int64_t, FW_ELEMENT_TYPE_I64);
#undef FW_ELEMENT_TYPE_TRAIT

/// A tensor type: element type and dims (FW_DYNAMIC_DIM for a dynamic one).
struct TensorType {
  fw_element_type_t elementType = fw_element_type_t(0);
  std::vector<int64_t> dims;

  static TensorType from(const fw_tensor_type_t &type) {
    return {type.element_type, std::vector<int64_t>(type.dims, type.dims + type.rank)};
  }
  /// "4x?x784xf32"
  std::string str() const {
    size_t rank = dims.size() < FW_MAX_RANK ? dims.size() : FW_MAX_RANK;
    fw_tensor_type_t t{elementType, uint32_t(rank), {}};
    for (size_t i = 0; i < rank; ++i)
      t.dims[i] = dims[i];
    char text[256];
    fw_tensor_type_format(&t, text, sizeof(text));
    return text;
  }
};

/// Dims of a tensor (at most FW_MAX_RANK): a braced list `{2, 4}`, a std::vector, or a
/// pointer and a count. The values are copied, so a Dims can be kept.
class Dims {
public:
  Dims() = default;
  Dims(std::initializer_list<int64_t> dims) : Dims(dims.begin(), dims.size()) {}
  Dims(const std::vector<int64_t> &dims) : Dims(dims.data(), dims.size()) {}
  Dims(const int64_t *data, size_t size) : size_(size) {
    // A rank above FW_MAX_RANK keeps its size so the runtime reports it.
    for (size_t i = 0; i < size && i < FW_MAX_RANK; ++i)
      dims_[i] = data[i];
  }
  const int64_t *data() const { return dims_; }
  size_t size() const { return size_; }

private:
  int64_t dims_[FW_MAX_RANK] = {};
  size_t size_ = 0;
};

//===----------------------------------------------------------------------===//
// Runtime
//===----------------------------------------------------------------------===//

class Task;
struct TaskAccess;
struct TaskBody;
struct TaskOptions;

/// Owns an fw_runtime_t, shared with every Buffer and Module made from it, so that it is
/// destroyed only after all of them.
class Runtime {
public:
  Runtime() = default;
  static Result<Runtime> create() { return create(nullptr); }
  /// With options (scheduler, workers, tier limits, ...: docs/task-graph.md).
  static Result<Runtime> create(const fw_runtime_options_t &options) { return create(&options); }

  fw_runtime_t *get() const { return runtime_.get(); }

  /// Waits for every task submitted so far (module calls and fw_task_submit).
  Status waitAll() const { return Status(fw_runtime_wait_all(runtime_.get())); }
  Result<fw_runtime_stats_t> stats() const {
    fw_runtime_stats_t stats;
    Status status(fw_runtime_get_stats(runtime_.get(), &stats));
    if (!status.ok())
      return status;
    return stats;
  }
  explicit operator bool() const { return runtime_ != nullptr; }

  /// Submits a task to the runtime's graph (fw_task_submit; below, after Buffer): it runs
  /// once the tasks before it on its buffers, and those in `options.after`, have. `body`
  /// is a callable `void(void *const *data, size_t num)`, data[i] the host address of
  /// access i, or a TaskBody with GPU implementations too; it is destroyed with the task.
  Result<Task> submit(const char *name, std::initializer_list<TaskAccess> accesses,
                      TaskBody body) const;
  Result<Task> submit(const char *name, std::initializer_list<TaskAccess> accesses,
                      TaskBody body, const TaskOptions &options) const;
  /// Runs a task and waits for it (fw_task_run): submit() then Task::wait() in one call,
  /// except that the calling thread runs the task itself where a sleeping worker would be
  /// woken for it. Returns the task's error, or why it could not be submitted.
  Status run(const char *name, std::initializer_list<TaskAccess> accesses, TaskBody body) const;
  Status run(const char *name, std::initializer_list<TaskAccess> accesses, TaskBody body,
             const TaskOptions &options) const;

private:
  friend class Buffer;
  friend class Module;
  static Result<Runtime> create(const fw_runtime_options_t *options) {
    fw_runtime_t *runtime = nullptr;
    Status status(fw_runtime_create(options, &runtime));
    if (!status.ok())
      return status;
    return Runtime(std::shared_ptr<fw_runtime_t>(runtime, fw_runtime_destroy));
  }
  explicit Runtime(std::shared_ptr<fw_runtime_t> runtime) : runtime_(std::move(runtime)) {}
  std::shared_ptr<fw_runtime_t> runtime_;
};

//===----------------------------------------------------------------------===//
// Buffer
//===----------------------------------------------------------------------===//

/// A reference to an fw_buffer_t: dense, row-major host memory.
class Buffer {
public:
  Buffer() = default;
  Buffer(const Buffer &other) : runtime_(other.runtime_), buffer_(other.buffer_) {
    fw_buffer_retain(buffer_);
  }
  Buffer(Buffer &&other) noexcept
      : runtime_(std::move(other.runtime_)), buffer_(std::exchange(other.buffer_, nullptr)) {}
  Buffer &operator=(Buffer other) noexcept {
    std::swap(runtime_, other.runtime_);
    std::swap(buffer_, other.buffer_);
    return *this;
  }
  ~Buffer() { fw_buffer_release(buffer_); }

  /// A new buffer owning its memory: zero-filled when `data` is null, otherwise a copy of
  /// `size` bytes (which must be the buffer's byte size).
  static Result<Buffer> create(Runtime &runtime, fw_element_type_t elementType, Dims dims,
                               const void *data = nullptr, size_t size = 0) {
    fw_buffer_t *buffer = nullptr;
    Status status(fw_buffer_create(runtime.get(), elementType, dims.size(), dims.data(),
                                   data, size, &buffer));
    if (!status.ok())
      return status;
    return Buffer(runtime.runtime_, buffer);
  }

  /// A view of `data` without a copy (fw_buffer_wrap with no release callback): the
  /// caller keeps `data` alive and in place until this Buffer, its copies and every call
  /// result that is this buffer are gone. `data` must be aligned to the element size.
  /// Read it through data() (what tasks wrote on a GPU comes back) or once those are gone.
  static Result<Buffer> wrap(Runtime &runtime, fw_element_type_t elementType, Dims dims,
                             void *data, size_t size) {
    fw_buffer_t *buffer = nullptr;
    Status status(fw_buffer_wrap(runtime.get(), elementType, dims.size(), dims.data(), data,
                                 size, nullptr, nullptr, &buffer));
    if (!status.ok())
      return status;
    return Buffer(runtime.runtime_, buffer);
  }

  /// A new buffer holding a copy of `values` (as many as the dims hold).
  template <typename T>
  static Result<Buffer> fromVector(Runtime &runtime, const std::vector<int64_t> &dims,
                                   const std::vector<T> &values) {
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(values.begin(), values.end());
      return create(runtime, FW_ELEMENT_TYPE_I1, dims, bytes.data(), bytes.size());
    } else {
      static_assert(std::is_trivially_copyable_v<T>, "not an element type");
      return create(runtime, ElementType<T>::value, dims, values.data(),
                    values.size() * sizeof(T));
    }
  }

  /// How tasks' contributions to the buffer (FW_ACCESS_REDUCE) combine: a built-in op
  /// (fw_buffer_set_reduction_op), or functions (fw_buffer_set_reduction).
  Status setReduction(fw_reduction_op_t op) {
    return Status(fw_buffer_set_reduction_op(buffer_, op));
  }
  Status setReduction(const fw_reduction_t &reduction) {
    return Status(fw_buffer_set_reduction(buffer_, &reduction));
  }

  /// OK when the buffer holds elements of type T; INVALID_ARGUMENT naming both types
  /// otherwise (and for a null buffer).
  template <typename T> Status checkType() const {
    if (!buffer_)
      return Status(FW_STATUS_INVALID_ARGUMENT, "the buffer is null");
    if (elementType() != ElementType<T>::value)
      return Status(FW_STATUS_INVALID_ARGUMENT,
                    std::string("the buffer holds ") + fw_element_type_name(elementType()) +
                        ", not " + fw_element_type_name(ElementType<T>::value));
    return Status();
  }

  /// A copy of the contents, or why there is none: checkType<T>() fails, the contents
  /// cannot come back to host memory (fw_buffer_map says why), or it is asked from a task
  /// body (where waiting for the buffer's tasks is refused).
  template <typename T> Result<std::vector<T>> read() const {
    Status type = checkType<T>();
    if (!type.ok())
      return type;
    void *data = nullptr;
    Status mapped(fw_buffer_map(buffer_, &data));
    if (!mapped.ok())
      return mapped;
    const auto *bytes = static_cast<const uint8_t *>(data);
    size_t count = elementCount();
    if (!bytes && count)
      return Status(FW_STATUS_INTERNAL, "fw_buffer_map gave no data");
    std::vector<T> values(count);
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < count; ++i)
        values[i] = bytes[i] != 0;
    } else if (count) {
      std::memcpy(values.data(), bytes, count * sizeof(T));
    }
    fw_buffer_unmap(buffer_); // copied: the runtime may move it between tiers again
    return values;
  }
  /// read<T>() without the reason: an empty vector when it fails.
  template <typename T> std::vector<T> toVector() const {
    Result<std::vector<T>> values = read<T>();
    return values.ok() ? std::move(values).value() : std::vector<T>();
  }

  /// Takes over one reference to `buffer` (e.g. a result of fw_module_call). The runtime
  /// it came from must then outlive the Buffer, as in C.
  static Buffer adopt(fw_buffer_t *buffer) { return Buffer(nullptr, buffer); }

  fw_buffer_t *get() const { return buffer_; }
  explicit operator bool() const { return buffer_ != nullptr; }
  fw_element_type_t elementType() const { return fw_buffer_element_type(buffer_); }
  size_t rank() const { return fw_buffer_rank(buffer_); }
  std::vector<int64_t> dims() const {
    std::vector<int64_t> dims(rank());
    for (size_t i = 0; i < dims.size(); ++i)
      dims[i] = fw_buffer_dim(buffer_, i);
    return dims;
  }
  TensorType type() const { return {elementType(), dims()}; }
  size_t elementCount() const { return fw_buffer_element_count(buffer_); }
  size_t byteSize() const { return fw_buffer_byte_size(buffer_); }
  /// The contents (null for a null Buffer), pinned in host memory until unmap() or the
  /// buffer's next use by a call.
  void *data() const { return fw_buffer_data(buffer_); }
  void unmap() const { fw_buffer_unmap(buffer_); }

private:
  friend class Module;
  Buffer(std::shared_ptr<fw_runtime_t> runtime, fw_buffer_t *buffer)
      : runtime_(std::move(runtime)), buffer_(buffer) {}
  std::shared_ptr<fw_runtime_t> runtime_; // declared first: outlives buffer_
  fw_buffer_t *buffer_ = nullptr;
};

//===----------------------------------------------------------------------===//
// Tasks
//===----------------------------------------------------------------------===//

/// A buffer a task accesses, and how (FW_ACCESS_READ, _WRITE, _READ_WRITE,
/// _READ_WRITE_COMMUTE for an update whose order among its group does not matter, or
/// _REDUCE for a contribution to the buffer's reduction, Buffer::setReduction).
struct TaskAccess {
  const Buffer &buffer;
  fw_access_t access;
};

/// A task's implementations (fw_task_desc_t): a body for the CPU workers, and bodies for
/// GPUs, which get device addresses and the worker's stream (a CUstream or hipStream_t),
/// enqueue their work there without waiting and return a Status (an error: a launch the
/// driver refused; the task then runs elsewhere or fails); one at least is set. A
/// callable taking (void *const *data, size_t num) converts to a CPU body. An exception
/// that leaves a body fails its task with the exception's message (fw_task_fail), as
/// fw::failTask does.
struct TaskBody {
  using Cpu = std::function<void(void *const *data, size_t num)>;
  using Gpu = std::function<Status(void *const *data, size_t num, void *stream)>;
  TaskBody() = default;
  template <typename F, typename = std::enable_if_t<
                            !std::is_same_v<std::decay_t<F>, TaskBody> &&
                            std::is_invocable_v<std::decay_t<F> &, void *const *, size_t>>>
  TaskBody(F &&body) : cpu(std::forward<F>(body)) {}
  Cpu cpu;
  Gpu cuda, hip;
};

/// From a task body: fails the task with `status` once the body returns (fw_task_fail);
/// an error when not in a body.
inline Status failTask(Status status) { return Status(fw_task_fail(status.release())); }

namespace detail {
/// Runs a body that returns a Status; an exception it throws becomes the task's failure.
/// Returns the body's Status (released: the caller hands it to the runtime).
template <typename F> fw_status_t guarded(F &&body) noexcept {
  try {
    return body().release();
  } catch (const std::exception &e) {
    failTask(Status(FW_STATUS_INTERNAL, std::string("the task body threw: ") + e.what()));
  } catch (...) {
    failTask(Status(FW_STATUS_INTERNAL, "the task body threw"));
  }
  return FW_OK;
}
} // namespace detail

/// A submitted task: wait for it, ask whether it is done, or name it in a later task's
/// TaskOptions::after. Move-only; the task goes on in the graph when the handle goes.
class Task {
public:
  Task() = default;
  /// The task's error, or that of a task it depended on.
  Status wait() const { return Status(fw_task_wait(task_.get())); }
  bool done() const { return fw_task_is_done(task_.get()) != 0; }
  fw_task_t *get() const { return task_.get(); }
  explicit operator bool() const { return task_ != nullptr; }

private:
  friend class Runtime;
  struct Release {
    void operator()(fw_task_t *task) const { fw_task_release(task); }
  };
  Task(std::shared_ptr<fw_runtime_t> runtime, fw_task_t *task)
      : runtime_(std::move(runtime)), task_(task) {}
  std::shared_ptr<fw_runtime_t> runtime_; // declared first: outlives task_
  std::unique_ptr<fw_task_t, Release> task_;
};

/// Hints, edges and the completion callback of a task (fw_task_desc_t).
struct TaskOptions {
  int32_t priority = 0;        // larger runs first among ready tasks
  double flops = 0, bytes = 0; // costs for the scheduler's model and the simulator
  std::vector<const Task *> after; // runs after these too (control edges)
  /// Called once with the task's outcome when it has finished (fw_task_desc_t.on_done:
  /// on the thread that completes it, before the waits see it finished; it must not wait
  /// for tasks). An exception that leaves it is dropped.
  std::function<void(const Status &)> onDone;
};

inline Result<Task> Runtime::submit(const char *name, std::initializer_list<TaskAccess> accesses,
                                    TaskBody body) const {
  return submit(name, accesses, std::move(body), TaskOptions());
}

namespace detail {
/// The fw_task_desc_t of a task from the C++ API, with the arrays it points into and the
/// body it owns until the runtime takes it over (release()).
class TaskDescription {
public:
  TaskDescription(const char *name, std::initializer_list<TaskAccess> accesses, TaskBody body,
                  const TaskOptions &options)
      : body_(std::make_unique<Owned>(Owned{std::move(body), options.onDone})) {
    access_.reserve(accesses.size());
    for (const TaskAccess &a : accesses)
      access_.push_back({a.buffer.get(), a.access});
    after_.reserve(options.after.size());
    for (const Task *t : options.after)
      after_.push_back(t ? t->get() : nullptr);
    std::memset(&desc_, 0, sizeof(desc_));
    desc_.name = name;
    desc_.accesses = access_.data();
    desc_.num_accesses = access_.size();
    desc_.priority = options.priority;
    desc_.flops = options.flops;
    desc_.bytes = options.bytes;
    desc_.after = after_.data();
    desc_.num_after = after_.size();
    // An exception stops here and fails the task: it must not unwind the runtime's C.
    if (body_->body.cpu)
      desc_.fn = [](void *user, void *const *data, size_t num) noexcept {
        guarded([&] {
          static_cast<Owned *>(user)->body.cpu(data, num);
          return Status();
        });
      };
    if (body_->body.cuda)
      desc_.cuda_fn = [](void *user, void *const *data, size_t num, void *stream) noexcept {
        return guarded(
            [&] { return static_cast<Owned *>(user)->body.cuda(data, num, stream); });
      };
    if (body_->body.hip)
      desc_.hip_fn = [](void *user, void *const *data, size_t num, void *stream) noexcept {
        return guarded([&] { return static_cast<Owned *>(user)->body.hip(data, num, stream); });
      };
    if (body_->onDone)
      desc_.on_done = [](void *user, fw_status_t status) noexcept {
        try {
          const Status copy(status ? fw_status_create(fw_status_code(status),
                                                      fw_status_message(status))
                                   : FW_OK);
          static_cast<Owned *>(user)->onDone(copy);
        } catch (...) {
        }
      };
    desc_.user_data = body_.get();
    desc_.release_user_data = [](void *user) { delete static_cast<Owned *>(user); };
  }
  TaskDescription(const TaskDescription &) = delete;
  TaskDescription &operator=(const TaskDescription &) = delete;

  const fw_task_desc_t *get() const { return &desc_; }
  /// The runtime owns the body from here on (it calls release_user_data).
  void release() { (void)body_.release(); }

private:
  /// What the task owns (its user_data): the bodies and the callback.
  struct Owned {
    TaskBody body;
    std::function<void(const Status &)> onDone;
  };
  std::vector<fw_task_access_t> access_;
  std::vector<fw_task_t *> after_;
  std::unique_ptr<Owned> body_;
  fw_task_desc_t desc_;
};
} // namespace detail

inline Result<Task> Runtime::submit(const char *name, std::initializer_list<TaskAccess> accesses,
                                    TaskBody body, const TaskOptions &options) const {
  detail::TaskDescription desc(name, accesses, std::move(body), options);
  fw_task_t *task = nullptr;
  Status status(fw_task_submit(runtime_.get(), desc.get(), &task));
  if (!status.ok())
    return status; // not submitted: `desc` still holds the body
  desc.release();
  return Task(runtime_, task);
}

inline Status Runtime::run(const char *name, std::initializer_list<TaskAccess> accesses,
                           TaskBody body) const {
  return run(name, accesses, std::move(body), TaskOptions());
}

inline Status Runtime::run(const char *name, std::initializer_list<TaskAccess> accesses,
                           TaskBody body, const TaskOptions &options) const {
  detail::TaskDescription desc(name, accesses, std::move(body), options);
  desc.release(); // fw_task_run takes the body over whatever it returns
  return Status(fw_task_run(runtime_.get(), desc.get()));
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

/// The signature of a module function.
struct Signature {
  std::string name;
  std::vector<TensorType> args;
  std::vector<TensorType> results;
};

/// A reference to a loaded fw_module_t.
class Module {
public:
  Module() = default;
  Module(const Module &other) : runtime_(other.runtime_), module_(other.module_) {
    fw_module_retain(module_);
  }
  Module(Module &&other) noexcept
      : runtime_(std::move(other.runtime_)), module_(std::exchange(other.module_, nullptr)) {}
  Module &operator=(Module other) noexcept {
    std::swap(runtime_, other.runtime_);
    std::swap(module_, other.module_);
    return *this;
  }
  ~Module() { fw_module_release(module_); }

  static Result<Module> loadFile(Runtime &runtime, const std::string &path) {
    fw_module_t *module = nullptr;
    Status status(fw_module_load_file(runtime.get(), path.c_str(), &module));
    return make(runtime, status, module);
  }
  static Result<Module> loadMemory(Runtime &runtime, const void *data, size_t size) {
    fw_module_t *module = nullptr;
    Status status(fw_module_load_memory(runtime.get(), data, size, &module));
    return make(runtime, status, module);
  }
  /// The module `name` linked into this program (fw_module_load_embedded).
  static Result<Module> loadEmbedded(Runtime &runtime, const char *name) {
    fw_module_t *module = nullptr;
    Status status(fw_module_load_embedded(runtime.get(), name, &module));
    return make(runtime, status, module);
  }

  /// The module of an embedded-module record (what generated headers use).
  static Result<Module> loadEmbedded(Runtime &runtime, const fw_embedded_module_t *record) {
    fw_module_t *module = nullptr;
    Status status(fw_module_load_embedded_record(runtime.get(), record, &module));
    return make(runtime, status, module);
  }

  fw_module_t *get() const { return module_; }
  explicit operator bool() const { return module_ != nullptr; }
  std::string name() const { return fw_module_name(module_); }

  /// The index of function `name` ("main" or "@main").
  Result<size_t> lookup(const char *name) const {
    size_t index = 0;
    Status status(fw_module_lookup_function(module_, name, &index));
    if (!status.ok())
      return status;
    return index;
  }

  /// The names of the functions, in index order.
  std::vector<std::string> functions() const {
    std::vector<std::string> names;
    for (size_t i = 0, e = fw_module_function_count(module_); i < e; ++i) {
      fw_function_info_t info;
      Status status(fw_module_function_info(module_, i, &info));
      if (status.ok())
        names.push_back(info.name);
    }
    return names;
  }

  Result<Signature> signature(size_t index) const {
    fw_function_info_t info;
    Status status(fw_module_function_info(module_, index, &info));
    if (!status.ok())
      return status;
    Signature signature{info.name, {}, {}};
    for (size_t i = 0; i < info.num_args; ++i)
      signature.args.push_back(TensorType::from(info.arg_types[i]));
    for (size_t i = 0; i < info.num_results; ++i)
      signature.results.push_back(TensorType::from(info.result_types[i]));
    return signature;
  }
  Result<Signature> signature(const char *name) const {
    Result<size_t> index = lookup(name);
    if (!index.ok())
      return index.takeStatus();
    return signature(*index);
  }

  /// Calls function `index` with `args` (borrowed) and returns its results.
  Result<std::vector<Buffer>> call(size_t index, const std::vector<Buffer> &args) const {
    Result<PendingCall> pending = callAsync(index, args);
    if (!pending.ok())
      return pending.takeStatus();
    return pending->wait();
  }
  Result<std::vector<Buffer>> call(const char *function,
                                   const std::vector<Buffer> &args) const {
    Result<size_t> index = lookup(function);
    if (!index.ok())
      return index.takeStatus();
    return call(*index, args);
  }
  Result<std::vector<Buffer>> call(const char *function,
                                   std::initializer_list<Buffer> args) const {
    return call(function, std::vector<Buffer>(args));
  }

  /// A call in flight (fw_module_call_async): its tasks run while the caller goes on.
  class PendingCall {
  public:
    PendingCall(PendingCall &&other) noexcept
        : runtime_(std::move(other.runtime_)), call_(other.call_),
          numResults_(other.numResults_) {
      other.call_ = nullptr;
    }
    PendingCall &operator=(PendingCall &&) = delete;
    PendingCall(const PendingCall &) = delete;
    /// Waits, dropping the results; in a task body, where waiting is refused, the call
    /// finishes on its own (fw_call_detach) and an error goes to Runtime::waitAll.
    ~PendingCall() {
      if (!call_)
        return;
      if (fw_runtime_in_task_body(runtime_.get()))
        fw_call_detach(call_);
      else
        fw_status_free(fw_call_wait(call_, nullptr, 0));
    }
    /// Lets the call finish without waiting for it (fw_call_detach).
    void detach() {
      fw_call_detach(call_);
      call_ = nullptr;
    }
    bool done() const { return fw_call_is_done(call_) != 0; }
    /// Waits and returns the results; the call is finished afterwards.
    Result<std::vector<Buffer>> wait() {
      if (!call_)
        return Status(FW_STATUS_FAILED_PRECONDITION, "the call was already waited for");
      if (fw_runtime_in_task_body(runtime_.get())) // refused; the call stays pending
        return Status(fw_call_wait(call_, nullptr, 0));
      std::vector<fw_buffer_t *> results(numResults_, nullptr);
      fw_call_t *call = call_;
      call_ = nullptr;
      Status status(fw_call_wait(call, results.data(), results.size()));
      if (!status.ok())
        return status;
      std::vector<Buffer> buffers;
      buffers.reserve(results.size());
      for (fw_buffer_t *result : results)
        buffers.push_back(Buffer(runtime_, result));
      return buffers;
    }

  private:
    friend class Module;
    PendingCall(std::shared_ptr<fw_runtime_t> runtime, fw_call_t *call, size_t numResults)
        : runtime_(std::move(runtime)), call_(call), numResults_(numResults) {}
    std::shared_ptr<fw_runtime_t> runtime_;
    fw_call_t *call_ = nullptr;
    size_t numResults_ = 0;
  };

  /// Starts function `index` on `args` (referenced until the call completes).
  Result<PendingCall> callAsync(size_t index, const std::vector<Buffer> &args) const {
    fw_function_info_t info;
    Status status(fw_module_function_info(module_, index, &info));
    if (!status.ok())
      return status;
    std::vector<fw_buffer_t *> handles;
    handles.reserve(args.size());
    for (const Buffer &arg : args)
      handles.push_back(arg.get());
    fw_call_t *call = nullptr;
    status = Status(fw_module_call_async(module_, index, handles.data(), handles.size(), &call));
    if (!status.ok())
      return status;
    return PendingCall(runtime_, call, info.num_results);
  }
  Result<PendingCall> callAsync(const char *function, const std::vector<Buffer> &args) const {
    Result<size_t> index = lookup(function);
    if (!index.ok())
      return index.takeStatus();
    return callAsync(*index, args);
  }

private:
  Module(std::shared_ptr<fw_runtime_t> runtime, fw_module_t *module)
      : runtime_(std::move(runtime)), module_(module) {}
  static Result<Module> make(Runtime &runtime, Status &status, fw_module_t *module) {
    if (!status.ok())
      return std::move(status);
    return Module(runtime.runtime_, module);
  }
  std::shared_ptr<fw_runtime_t> runtime_; // declared first: outlives module_
  fw_module_t *module_ = nullptr;
};

} // namespace fw

#endif // FW_RUNTIME_HPP_
