//===- DLPack.cpp - exchange tensors with frameworks ----------------------===//

#include "tessera/dlpack.h"
#include "Internal.h"

#include <cstring>

using namespace tessera;
using tessera::runtime::makeStatus;

namespace {

/// The DLPack device type of a tessera device, from its triple.
DLDeviceType dlpackDeviceType(const tessera_device_s &device) {
  std::string_view triple = device.info.triple;
  if (triple.rfind("nvptx", 0) == 0)
    return kDLCUDA;
  if (triple.rfind("amdgcn", 0) == 0)
    return kDLROCM;
  if (triple.rfind("spirv", 0) == 0)
    return kDLVulkan;
  return kDLCPU;
}

bool toDLPack(uint32_t dtype, DLDataType &out) {
  out.lanes = 1;
  switch (static_cast<tessera_dtype_t>(dtype)) {
  case TESSERA_DTYPE_F16:
    out.code = kDLFloat, out.bits = 16;
    return true;
  case TESSERA_DTYPE_BF16:
    out.code = kDLBfloat, out.bits = 16;
    return true;
  case TESSERA_DTYPE_F32:
    out.code = kDLFloat, out.bits = 32;
    return true;
  case TESSERA_DTYPE_F64:
    out.code = kDLFloat, out.bits = 64;
    return true;
  case TESSERA_DTYPE_I1:
    out.code = kDLBool, out.bits = 8;
    return true;
  case TESSERA_DTYPE_F8E4M3:
    out.code = kDLFloat8_e4m3fn, out.bits = 8;
    return true;
  case TESSERA_DTYPE_F8E5M2:
    out.code = kDLFloat8_e5m2, out.bits = 8;
    return true;
  case TESSERA_DTYPE_I8:
    out.code = kDLInt, out.bits = 8;
    return true;
  case TESSERA_DTYPE_I16:
    out.code = kDLInt, out.bits = 16;
    return true;
  case TESSERA_DTYPE_I32:
    out.code = kDLInt, out.bits = 32;
    return true;
  case TESSERA_DTYPE_I64:
  case TESSERA_DTYPE_INDEX:
    out.code = kDLInt, out.bits = 64;
    return true;
  default:
    return false; // DLPack 0.8 has no fp8 codes
  }
}

bool fromDLPack(DLDataType in, tessera_dtype_t &out) {
  if (in.lanes != 1)
    return false;
  struct Map {
    uint8_t code, bits;
    tessera_dtype_t dtype;
  };
  static const Map table[] = {
      {kDLFloat, 16, TESSERA_DTYPE_F16},
      {kDLBfloat, 16, TESSERA_DTYPE_BF16},
      {kDLFloat, 32, TESSERA_DTYPE_F32},
      {kDLFloat, 64, TESSERA_DTYPE_F64},
      {kDLBool, 8, TESSERA_DTYPE_I1},
      {kDLInt, 8, TESSERA_DTYPE_I8},
      {kDLUInt, 8, TESSERA_DTYPE_I8},
      {kDLInt, 16, TESSERA_DTYPE_I16},
      {kDLInt, 32, TESSERA_DTYPE_I32},
      {kDLInt, 64, TESSERA_DTYPE_I64},
      {kDLFloat8_e4m3fn, 8, TESSERA_DTYPE_F8E4M3},
      {kDLFloat8_e5m2, 8, TESSERA_DTYPE_F8E5M2},
  };
  for (const Map &m : table)
    if (m.code == in.code && m.bits == in.bits) {
      out = m.dtype;
      return true;
    }
  return false;
}

/// What an exported tensor owns: its shape and a reference on the buffer.
struct ExportContext {
  DLManagedTensor managed;
  int64_t shape[TESSERA_MAX_RANK];
  tessera_buffer_s *buffer;
};

void deleteExport(DLManagedTensor *self) {
  auto *context = static_cast<ExportContext *>(self->manager_ctx);
  tessera_buffer_release(context->buffer);
  delete context;
}

} // namespace

extern "C" {

tessera_status_t tessera_buffer_from_dlpack(tessera_device_t device,
                                            DLManagedTensor *tensor,
                                            tessera_buffer_t *out_buffer,
                                            tessera_arg *out_arg) {
  TESSERA_CHECK_ARG(device && tensor && out_buffer && out_arg,
                    "tessera_buffer_from_dlpack: NULL argument");
  const DLTensor &t = tensor->dl_tensor;
  auto fail = [](const std::string &what) {
    return makeStatus(TESSERA_INVALID_ARGUMENT,
                      "cannot import DLPack tensor: " + what);
  };
  DLDeviceType want = dlpackDeviceType(*device);
  bool hostVisible = want == kDLCPU && (t.device.device_type == kDLCUDAHost ||
                                        t.device.device_type == kDLROCMHost);
  if (t.device.device_type != want && !hostVisible)
    return fail("it lives on DLPack device type " +
                std::to_string(t.device.device_type) + ", device '" +
                device->info.name + "' is type " + std::to_string(want));
  if (want != kDLCPU &&
      t.device.device_id != static_cast<int32_t>(device->ordinal))
    return fail("it lives on device id " + std::to_string(t.device.device_id) +
                ", device '" + device->info.name + "' is id " +
                std::to_string(device->ordinal));
  if (t.ndim < 0 || t.ndim > TESSERA_MAX_RANK)
    return fail("rank " + std::to_string(t.ndim) + " is not in [0, " +
                std::to_string(TESSERA_MAX_RANK) + "]");
  if (t.ndim > 0 && !t.shape)
    return fail("it has no shape");
  tessera_dtype_t dtype;
  if (!fromDLPack(t.dtype, dtype))
    return fail("dtype (code " + std::to_string(t.dtype.code) + ", " +
                std::to_string(t.dtype.bits) + " bits, " +
                std::to_string(t.dtype.lanes) + " lanes) has no tessera type");
  uint64_t elements = 1;
  int64_t expectedStride = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] < 0)
      return fail("dimension " + std::to_string(d) + " is negative");
    // Strides of size-1 dimensions carry no information; ignore them.
    if (t.strides && t.shape[d] != 1 && t.strides[d] != expectedStride)
      return fail("it is not compact row-major (dimension " +
                  std::to_string(d) + " has stride " +
                  std::to_string(t.strides[d]) + ", expected " +
                  std::to_string(expectedStride) + ")");
    if (__builtin_mul_overflow(expectedStride, t.shape[d], &expectedStride) ||
        __builtin_mul_overflow(elements, static_cast<uint64_t>(t.shape[d]),
                               &elements))
      return fail("its size overflows");
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(elements, t.dtype.bits / 8, &bytes))
    return fail("its size overflows");

  auto *buffer = new tessera_buffer_s;
  buffer->device = device;
  buffer->address = reinterpret_cast<uintptr_t>(t.data);
  buffer->size = t.byte_offset + bytes;
  buffer->imported = tensor;

  tessera_arg arg;
  std::memset(&arg, 0, sizeof arg);
  arg.kind = TESSERA_ARG_TENSOR;
  arg.u.tensor.buffer = buffer;
  arg.u.tensor.byte_offset = t.byte_offset;
  arg.u.tensor.dtype = dtype;
  arg.u.tensor.rank = static_cast<uint32_t>(t.ndim);
  for (int32_t d = 0; d < t.ndim; ++d)
    arg.u.tensor.dims[d] = t.shape[d];
  *out_buffer = buffer;
  *out_arg = arg;
  return nullptr;
}

tessera_status_t tessera_buffer_to_dlpack(const tessera_tensor_arg *tensor,
                                          DLManagedTensor **out) {
  TESSERA_CHECK_ARG(tensor && tensor->buffer && out,
                    "tessera_buffer_to_dlpack: NULL argument");
  TESSERA_CHECK_ARG(tensor->rank <= TESSERA_MAX_RANK,
                    "tessera_buffer_to_dlpack: rank above TESSERA_MAX_RANK");
  DLDataType dtype;
  if (!toDLPack(tensor->dtype, dtype))
    return makeStatus(TESSERA_INVALID_ARGUMENT,
                      std::string("tessera_buffer_to_dlpack: ") +
                          tessera_dtype_name(tensor->dtype) +
                          " has no DLPack 0.8 equivalent");
  uint64_t bytes = dtype.bits / 8, end = 0;
  bool overflow = false;
  for (uint32_t d = 0; d < tensor->rank; ++d) {
    if (tensor->dims[d] < 0)
      return makeStatus(TESSERA_INVALID_ARGUMENT,
                        "tessera_buffer_to_dlpack: negative dimension");
    overflow |= __builtin_mul_overflow(
        bytes, static_cast<uint64_t>(tensor->dims[d]), &bytes);
  }
  overflow |= __builtin_add_overflow(bytes, tensor->byte_offset, &end);
  if (overflow || end > tensor->buffer->size)
    return makeStatus(TESSERA_INVALID_ARGUMENT,
                      "tessera_buffer_to_dlpack: the view exceeds the "
                      "buffer's " +
                          std::to_string(tensor->buffer->size) + " bytes");

  tessera_device_s *device = tensor->buffer->device;
  auto *context = new ExportContext;
  std::memset(&context->managed, 0, sizeof context->managed);
  context->buffer = tensor->buffer;
  tessera::runtime::retainBuffer(tensor->buffer);
  DLTensor &t = context->managed.dl_tensor;
  t.data =
      reinterpret_cast<void *>(static_cast<uintptr_t>(tensor->buffer->address));
  t.device.device_type = dlpackDeviceType(*device);
  t.device.device_id = t.device.device_type == kDLCPU
                           ? 0
                           : static_cast<int32_t>(device->ordinal);
  t.ndim = static_cast<int32_t>(tensor->rank);
  t.dtype = dtype;
  for (uint32_t d = 0; d < tensor->rank; ++d)
    context->shape[d] = tensor->dims[d];
  t.shape = context->shape;
  t.strides = nullptr; // compact row-major
  t.byte_offset = tensor->byte_offset;
  context->managed.manager_ctx = context;
  context->managed.deleter = deleteExport;
  *out = &context->managed;
  return nullptr;
}

} // extern "C"
