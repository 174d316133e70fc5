//===- tessera/runtime.hpp - thin C++ wrapper of the runtime C API -*- C++
//-*-===//
//
// RAII owners for the C handles and exceptions for failed statuses. Header
// only, so the C ABI stays the only binary interface of libtessera_runtime.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_HPP
#define TESSERA_RUNTIME_HPP

#include "tessera/runtime.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

/// A failed tessera_status_t.
class Error : public std::runtime_error {
public:
  Error(tessera_status_code_t code, const std::string &message)
      : std::runtime_error(message), code_(code) {}
  tessera_status_code_t code() const { return code_; }

private:
  tessera_status_code_t code_;
};

/// Throws Error for a non-NULL status, freeing it.
inline void check(tessera_status_t status) {
  if (!status)
    return;
  Error error(tessera_status_code(status), tessera_status_message(status));
  tessera_status_free(status);
  throw error;
}

namespace detail {
/// Owns a handle and destroys it with Destroy.
template <typename Handle, void (*Destroy)(Handle)> class Owned {
public:
  Owned() = default;
  explicit Owned(Handle handle) : handle_(handle) {}
  Owned(Owned &&other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)) {}
  Owned &operator=(Owned &&other) noexcept {
    reset(std::exchange(other.handle_, nullptr));
    return *this;
  }
  ~Owned() { reset(); }
  Handle get() const { return handle_; }
  Handle release() { return std::exchange(handle_, nullptr); }
  explicit operator bool() const { return handle_ != nullptr; }

protected:
  void reset(Handle handle = nullptr) {
    if (handle_)
      Destroy(handle_);
    handle_ = handle;
  }
  Handle handle_ = nullptr;
};
} // namespace detail

class Stream : public detail::Owned<tessera_stream_t, tessera_stream_destroy> {
public:
  using Owned::Owned;
  void synchronize() const { check(tessera_stream_synchronize(handle_)); }
};

class Event : public detail::Owned<tessera_event_t, tessera_event_destroy> {
public:
  using Owned::Owned;
  void record(const Stream *stream = nullptr) const {
    check(tessera_event_record(handle_, stream ? stream->get() : nullptr));
  }
  void synchronize() const { check(tessera_event_synchronize(handle_)); }
  float elapsedSince(const Event &start) const {
    float ms = 0;
    check(tessera_event_elapsed_ms(start.get(), handle_, &ms));
    return ms;
  }
};

class Buffer : public detail::Owned<tessera_buffer_t, tessera_buffer_release> {
public:
  using Owned::Owned;
  uint64_t size() const { return tessera_buffer_size(handle_); }
  void write(const void *src, uint64_t bytes, uint64_t offset = 0,
             const Stream *stream = nullptr) const {
    check(tessera_buffer_write(handle_, stream ? stream->get() : nullptr,
                               offset, src, bytes));
  }
  void read(void *dst, uint64_t bytes, uint64_t offset = 0,
            const Stream *stream = nullptr) const {
    check(tessera_buffer_read(handle_, stream ? stream->get() : nullptr, offset,
                              dst, bytes));
  }
  /// A tensor argument viewing the whole buffer from byte 0.
  tessera_arg tensor(tessera_dtype_t dtype, std::vector<int64_t> dims) const {
    return tessera_arg_tensor(handle_, dtype,
                              static_cast<uint32_t>(dims.size()), dims.data());
  }
};

/// Owned by its Module.
class Kernel {
public:
  explicit Kernel(tessera_kernel_t kernel) : kernel_(kernel) {}
  tessera_kernel_t get() const { return kernel_; }
  void launch(const std::vector<tessera_arg> &args,
              const Stream *stream = nullptr) const {
    check(tessera_kernel_launch(kernel_, stream ? stream->get() : nullptr,
                                args.data(),
                                static_cast<uint32_t>(args.size())));
  }
  tessera_launch_dims prepare(const std::vector<tessera_arg> &args) const {
    tessera_launch_dims dims;
    check(tessera_kernel_prepare_launch(
        kernel_, args.data(), static_cast<uint32_t>(args.size()), &dims));
    return dims;
  }

private:
  tessera_kernel_t kernel_;
};

class Module : public detail::Owned<tessera_module_t, tessera_module_unload> {
public:
  using Owned::Owned;
  Kernel kernel(const std::string &name) const {
    tessera_kernel_t kernel;
    check(tessera_module_get_kernel(handle_, name.c_str(), &kernel));
    return Kernel(kernel);
  }
};

/// Owned by its Runtime.
class Device {
public:
  explicit Device(tessera_device_t device) : device_(device) {}
  tessera_device_t get() const { return device_; }
  tessera_device_info info() const {
    tessera_device_info info;
    check(tessera_device_get_info(device_, &info));
    return info;
  }
  Buffer alloc(uint64_t bytes) const {
    tessera_buffer_t buffer;
    check(tessera_buffer_alloc(device_, bytes, &buffer));
    return Buffer(buffer);
  }
  Stream createStream() const {
    tessera_stream_t stream;
    check(tessera_stream_create(device_, &stream));
    return Stream(stream);
  }
  Event createEvent() const {
    tessera_event_t event;
    check(tessera_event_create(device_, &event));
    return Event(event);
  }
  Module loadBundle(const std::string &path) const {
    tessera_module_t module;
    check(tessera_module_load_bundle_file(device_, path.c_str(), &module));
    return Module(module);
  }
  Module loadBundle(const void *data, uint64_t size,
                    const std::string &name = "<memory>") const {
    tessera_module_t module;
    check(tessera_module_load_bundle_memory(device_, data, size, name.c_str(),
                                            &module));
    return Module(module);
  }

private:
  tessera_device_t device_;
};

class Runtime
    : public detail::Owned<tessera_runtime_t, tessera_runtime_destroy> {
public:
  using Owned::Owned;
  static Runtime create(const tessera_runtime_options *options = nullptr) {
    tessera_runtime_t runtime;
    check(tessera_runtime_create_with_options(options, &runtime));
    return Runtime(runtime);
  }
  std::vector<tessera_plugin_info> plugins() const {
    uint32_t count = 0;
    check(tessera_runtime_plugin_count(handle_, &count));
    std::vector<tessera_plugin_info> infos(count);
    for (uint32_t i = 0; i < count; ++i)
      check(tessera_runtime_plugin_info(handle_, i, &infos[i]));
    return infos;
  }
  std::vector<Device> devices() const {
    uint32_t count = 0;
    check(tessera_runtime_device_count(handle_, &count));
    std::vector<Device> devices;
    for (uint32_t i = 0; i < count; ++i) {
      tessera_device_t device;
      check(tessera_runtime_device(handle_, i, &device));
      devices.emplace_back(device);
    }
    return devices;
  }
};

} // namespace tessera

#endif // TESSERA_RUNTIME_HPP
