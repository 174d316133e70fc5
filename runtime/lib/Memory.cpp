//===- Memory.cpp - buffers, streams and events ---------------------------===//

#include "Internal.h"
#include "tessera/dlpack.h"

#include <cstddef>

using tessera::runtime::makeStatus;
using tessera::runtime::PluginError;
using tessera::runtime::pluginStatus;

namespace tessera::runtime {

std::unique_lock<std::mutex> lockStream(tessera_device_s *device,
                                        tessera_stream_s *stream) {
  return std::unique_lock<std::mutex>(stream ? stream->mutex
                                             : device->defaultStreamMutex);
}

void retainBuffer(tessera_buffer_s *buffer) {
  buffer->references.fetch_add(1, std::memory_order_relaxed);
}

} // namespace tessera::runtime

namespace {

/// Checks [offset, offset + bytes) lies in the buffer, without overflow.
tessera_status_t checkRange(tessera_buffer_s *buffer, uint64_t offset,
                            uint64_t bytes, const char *what) {
  if (offset > buffer->size || bytes > buffer->size - offset)
    return makeStatus(TESSERA_INVALID_ARGUMENT,
                      std::string(what) + ": range [" + std::to_string(offset) +
                          ", +" + std::to_string(bytes) +
                          ") exceeds the buffer's " +
                          std::to_string(buffer->size) + " bytes");
  return nullptr;
}

tessera_status_t checkStream(tessera_buffer_s *buffer, tessera_stream_s *stream,
                             const char *what) {
  if (stream && stream->device != buffer->device)
    return makeStatus(TESSERA_INVALID_ARGUMENT,
                      std::string(what) +
                          ": the stream belongs to another device");
  return nullptr;
}

} // namespace

extern "C" {

tessera_status_t tessera_buffer_alloc(tessera_device_t device, uint64_t bytes,
                                      tessera_buffer_t *out) {
  TESSERA_CHECK_ARG(device && out, "tessera_buffer_alloc: NULL argument");
  auto buffer = std::make_unique<tessera_buffer_s>();
  buffer->device = device;
  buffer->size = bytes;
  PluginError err;
  // A zero-byte buffer is valid (an empty tensor) but plugins need not
  // support zero-byte allocations, so allocate one byte.
  if (auto *status = pluginStatus(
          device->api->mem_alloc(device->handle, bytes ? bytes : 1,
                                 &buffer->address, err.data(), err.size()),
          err.text,
          "cannot allocate " + std::to_string(bytes) + " bytes on '" +
              device->info.name + "'"))
    return status;
  *out = buffer.release();
  return nullptr;
}

void tessera_buffer_release(tessera_buffer_t buffer) {
  if (!buffer ||
      buffer->references.fetch_sub(1, std::memory_order_acq_rel) != 1)
    return;
  if (buffer->imported) {
    if (buffer->imported->deleter)
      buffer->imported->deleter(buffer->imported);
  } else {
    buffer->device->api->mem_free(buffer->device->handle, buffer->address);
  }
  delete buffer;
}

uint64_t tessera_buffer_size(tessera_buffer_t buffer) {
  return buffer ? buffer->size : 0;
}

uint64_t tessera_buffer_device_address(tessera_buffer_t buffer) {
  return buffer ? buffer->address : 0;
}

tessera_device_t tessera_buffer_device(tessera_buffer_t buffer) {
  return buffer ? buffer->device : nullptr;
}

tessera_status_t tessera_buffer_write(tessera_buffer_t buffer,
                                      tessera_stream_t stream, uint64_t offset,
                                      const void *src, uint64_t bytes) {
  TESSERA_CHECK_ARG(buffer && (src || !bytes),
                    "tessera_buffer_write: NULL argument");
  if (auto *s = checkRange(buffer, offset, bytes, "tessera_buffer_write"))
    return s;
  if (auto *s = checkStream(buffer, stream, "tessera_buffer_write"))
    return s;
  if (!bytes)
    return nullptr;
  tessera_device_s *device = buffer->device;
  auto lock = tessera::runtime::lockStream(device, stream);
  PluginError err;
  return pluginStatus(device->api->copy_to_device(
                          device->handle, stream ? stream->handle : nullptr,
                          buffer->address + offset, src, bytes, err.data(),
                          err.size()),
                      err.text, "copy to device failed");
}

tessera_status_t tessera_buffer_read(tessera_buffer_t buffer,
                                     tessera_stream_t stream, uint64_t offset,
                                     void *dst, uint64_t bytes) {
  TESSERA_CHECK_ARG(buffer && (dst || !bytes),
                    "tessera_buffer_read: NULL argument");
  if (auto *s = checkRange(buffer, offset, bytes, "tessera_buffer_read"))
    return s;
  if (auto *s = checkStream(buffer, stream, "tessera_buffer_read"))
    return s;
  if (!bytes)
    return nullptr;
  tessera_device_s *device = buffer->device;
  auto lock = tessera::runtime::lockStream(device, stream);
  PluginError err;
  return pluginStatus(device->api->copy_to_host(
                          device->handle, stream ? stream->handle : nullptr,
                          dst, buffer->address + offset, bytes, err.data(),
                          err.size()),
                      err.text, "copy to host failed");
}

tessera_status_t tessera_buffer_copy(tessera_buffer_t dst, uint64_t dst_offset,
                                     tessera_buffer_t src, uint64_t src_offset,
                                     uint64_t bytes, tessera_stream_t stream) {
  TESSERA_CHECK_ARG(dst && src, "tessera_buffer_copy: NULL argument");
  TESSERA_CHECK_ARG(dst->device == src->device,
                    "tessera_buffer_copy: buffers on different devices");
  if (auto *s = checkRange(dst, dst_offset, bytes, "tessera_buffer_copy (dst)"))
    return s;
  if (auto *s = checkRange(src, src_offset, bytes, "tessera_buffer_copy (src)"))
    return s;
  if (auto *s = checkStream(dst, stream, "tessera_buffer_copy"))
    return s;
  if (!bytes)
    return nullptr;
  tessera_device_s *device = dst->device;
  auto lock = tessera::runtime::lockStream(device, stream);
  PluginError err;
  return pluginStatus(device->api->copy_device(
                          device->handle, stream ? stream->handle : nullptr,
                          dst->address + dst_offset, src->address + src_offset,
                          bytes, err.data(), err.size()),
                      err.text, "device copy failed");
}

tessera_status_t tessera_buffer_fill(tessera_buffer_t buffer,
                                     tessera_stream_t stream, uint64_t offset,
                                     uint8_t value, uint64_t bytes) {
  TESSERA_CHECK_ARG(buffer, "tessera_buffer_fill: NULL argument");
  if (auto *s = checkRange(buffer, offset, bytes, "tessera_buffer_fill"))
    return s;
  if (auto *s = checkStream(buffer, stream, "tessera_buffer_fill"))
    return s;
  if (!bytes)
    return nullptr;
  tessera_device_s *device = buffer->device;
  auto lock = tessera::runtime::lockStream(device, stream);
  PluginError err;
  return pluginStatus(device->api->mem_set(device->handle,
                                           stream ? stream->handle : nullptr,
                                           buffer->address + offset, value,
                                           bytes, err.data(), err.size()),
                      err.text, "fill failed");
}

tessera_status_t tessera_stream_create(tessera_device_t device,
                                       tessera_stream_t *out) {
  TESSERA_CHECK_ARG(device && out, "tessera_stream_create: NULL argument");
  auto stream = std::make_unique<tessera_stream_s>();
  stream->device = device;
  PluginError err;
  if (auto *s = pluginStatus(device->api->stream_create(device->handle,
                                                        &stream->handle,
                                                        err.data(), err.size()),
                             err.text, "cannot create a stream"))
    return s;
  *out = stream.release();
  return nullptr;
}

tessera_status_t tessera_stream_wrap(tessera_device_t device, void *native,
                                     tessera_stream_t *out) {
  TESSERA_CHECK_ARG(device && native && out,
                    "tessera_stream_wrap: NULL argument");
  const tessera_runtime_plugin *api = device->api;
  // ABI 1.0 tables end before stream_wrap.
  if (api->struct_size < offsetof(tessera_runtime_plugin, stream_wrap) +
                             sizeof(api->stream_wrap) ||
      !api->stream_wrap)
    return tessera::runtime::makeStatus(
        TESSERA_UNAVAILABLE,
        std::string("the ") + api->name + " plugin cannot wrap native streams");
  auto stream = std::make_unique<tessera_stream_s>();
  stream->device = device;
  PluginError err;
  if (auto *s =
          pluginStatus(api->stream_wrap(device->handle, native, &stream->handle,
                                        err.data(), err.size()),
                       err.text, "cannot wrap the native stream"))
    return s;
  *out = stream.release();
  return nullptr;
}

void tessera_stream_destroy(tessera_stream_t stream) {
  if (!stream)
    return;
  stream->device->api->stream_destroy(stream->handle);
  delete stream;
}

tessera_status_t tessera_stream_synchronize(tessera_stream_t stream) {
  TESSERA_CHECK_ARG(stream, "tessera_stream_synchronize: NULL stream");
  auto lock = tessera::runtime::lockStream(stream->device, stream);
  PluginError err;
  return pluginStatus(stream->device->api->stream_synchronize(
                          stream->handle, err.data(), err.size()),
                      err.text, "stream synchronize failed");
}

tessera_status_t tessera_event_create(tessera_device_t device,
                                      tessera_event_t *out) {
  TESSERA_CHECK_ARG(device && out, "tessera_event_create: NULL argument");
  auto event = std::make_unique<tessera_event_s>();
  event->device = device;
  PluginError err;
  if (auto *s =
          pluginStatus(device->api->event_create(device->handle, &event->handle,
                                                 err.data(), err.size()),
                       err.text, "cannot create an event"))
    return s;
  *out = event.release();
  return nullptr;
}

void tessera_event_destroy(tessera_event_t event) {
  if (!event)
    return;
  event->device->api->event_destroy(event->handle);
  delete event;
}

tessera_status_t tessera_event_record(tessera_event_t event,
                                      tessera_stream_t stream) {
  TESSERA_CHECK_ARG(event, "tessera_event_record: NULL event");
  TESSERA_CHECK_ARG(!stream || stream->device == event->device,
                    "tessera_event_record: stream of another device");
  auto lock = tessera::runtime::lockStream(event->device, stream);
  PluginError err;
  return pluginStatus(event->device->api->event_record(
                          event->handle, stream ? stream->handle : nullptr,
                          err.data(), err.size()),
                      err.text, "event record failed");
}

tessera_status_t tessera_event_synchronize(tessera_event_t event) {
  TESSERA_CHECK_ARG(event, "tessera_event_synchronize: NULL event");
  PluginError err;
  return pluginStatus(event->device->api->event_synchronize(
                          event->handle, err.data(), err.size()),
                      err.text, "event synchronize failed");
}

tessera_status_t tessera_event_elapsed_ms(tessera_event_t start,
                                          tessera_event_t end, float *ms) {
  TESSERA_CHECK_ARG(start && end && ms,
                    "tessera_event_elapsed_ms: NULL argument");
  TESSERA_CHECK_ARG(start->device == end->device,
                    "tessera_event_elapsed_ms: events of different devices");
  PluginError err;
  return pluginStatus(
      start->device->api->event_elapsed_ms(start->handle, end->handle, ms,
                                           err.data(), err.size()),
      err.text, "event elapsed time failed");
}

} // extern "C"
