//===- runtime_module.cpp - tessera._runtime: the runtime C API in Python -===//
//
// A thin nanobind layer over tessera/runtime.h (and the compile cache
// lookup of core/cache, which needs no LLVM). It links no MLIR: a process
// that only runs bundles imports this module and never the compiler.
//
// The launch path is the hot one (Python launch overhead is benchmarked in
// bench/python). FastCall runs a JITKernel's whole call here: it views torch
// tensors through torch's DLPack exchange API (C function pointers, no
// Python call; through their attributes where torch has no such API) and
// numpy arrays through their DLPack capsules, allocates the outputs, asks
// torch for its current stream, wraps each view as a runtime buffer without
// copying (tessera_buffer_from_dlpack), launches and releases the wrappers.
// Kernel.launch does the same for a list of capsules, torch tensors and
// Python numbers (tessera.runtime and the first call of a JITKernel).
//
//===----------------------------------------------------------------------===//

#include "tessera/dlpack.h"
#include "tessera/runtime.h"

#include "CompileCache.h"
#include "CompileKey.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace {

/// Raised for every failed runtime call; tessera/__init__.py re-exports it
/// as tessera.RuntimeError (a subclass of Python's RuntimeError).
nb::object gRuntimeError;

[[noreturn]] void raise(tessera_status_t status, const std::string &what) {
  std::string msg = what;
  if (status) {
    if (!msg.empty())
      msg += ": ";
    msg += tessera_status_message(status);
    tessera_status_free(status);
  }
  PyErr_SetString(gRuntimeError.ptr(), msg.c_str());
  throw nb::python_error();
}

void check(tessera_status_t status, const char *what = "") {
  if (status)
    raise(status, what);
}

/// The process's runtime: created on first use, never destroyed (plugins
/// stay loaded until the process exits; destroying them from an atexit hook
/// would race with objects Python has not collected yet).
tessera_runtime_t runtimeHandle() {
  static tessera_runtime_t rt = [] {
    tessera_runtime_t r = nullptr;
    check(tessera_runtime_create(&r), "cannot create the tessera runtime");
    return r;
  }();
  return rt;
}

nb::dict deviceInfo(uint32_t index) {
  tessera_device_t dev = nullptr;
  check(tessera_runtime_device(runtimeHandle(), index, &dev));
  tessera_device_info info;
  check(tessera_device_get_info(dev, &info));
  nb::dict d;
  d["index"] = index;
  d["name"] = std::string(info.name);
  d["triple"] = std::string(info.triple);
  d["chip"] = std::string(info.chip);
  d["plugin"] = std::string(info.plugin);
  d["total_memory"] = info.total_memory;
  d["compute_units"] = info.compute_units;
  d["max_threads_per_block"] = info.max_threads_per_block;
  d["max_shared_bytes_per_block"] = info.max_shared_bytes_per_block;
  d["warp_size"] = info.warp_size;
  return d;
}

nb::list devices() {
  uint32_t n = 0;
  check(tessera_runtime_device_count(runtimeHandle(), &n));
  nb::list out;
  for (uint32_t i = 0; i < n; ++i)
    out.append(deviceInfo(i));
  return out;
}

nb::list plugins() {
  uint32_t n = 0;
  check(tessera_runtime_plugin_count(runtimeHandle(), &n));
  nb::list out;
  for (uint32_t i = 0; i < n; ++i) {
    tessera_plugin_info p;
    check(tessera_runtime_plugin_info(runtimeHandle(), i, &p));
    nb::dict d;
    d["name"] = std::string(p.name);
    d["version"] = std::string(p.version);
    d["state"] = p.state == TESSERA_PLUGIN_READY         ? "ready"
                 : p.state == TESSERA_PLUGIN_UNAVAILABLE ? "unavailable"
                                                         : "refused";
    d["message"] = std::string(p.message);
    d["device_count"] = p.device_count;
    out.append(d);
  }
  return out;
}

/// A module loaded from a bundle onto one device.
struct Module {
  tessera_module_t handle = nullptr;
  tessera_device_t device = nullptr;
  std::string name;

  Module(uint32_t deviceIndex, nb::bytes bundle, std::string name)
      : name(std::move(name)) {
    check(tessera_runtime_device(runtimeHandle(), deviceIndex, &device));
    check(tessera_module_load_bundle_memory(
        device, bundle.c_str(), bundle.size(), this->name.c_str(), &handle));
  }
  ~Module() { tessera_module_unload(handle); }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  std::vector<std::string> kernelNames() const {
    std::vector<std::string> out;
    for (uint32_t i = 0, n = tessera_module_kernel_count(handle); i < n; ++i)
      out.push_back(tessera_module_kernel_name(handle, i));
    return out;
  }
};

/// What Kernel.launch expects in one position.
enum SlotKind : int { kTensor = -1 };

/// A kernel of a loaded module. `signature` holds, per argument, kTensor or
/// the tessera_dtype_t of a scalar (how a Python number is passed).
struct Kernel {
  std::shared_ptr<void> moduleKeepAlive;
  tessera_kernel_t handle = nullptr;
  tessera_device_t device = nullptr;
  std::string name;
  std::vector<int> signature;
};

/// Scalars: a Python bool/int/float into the argument's dtype.
tessera_arg scalarArg(nb::handle value, int dtype, const Kernel &k,
                      size_t position) {
  auto bad = [&](const char *what) {
    PyErr_Format(PyExc_TypeError,
                 "kernel '%s': argument %zu must be %s, got %s", k.name.c_str(),
                 position, what, Py_TYPE(value.ptr())->tp_name);
    throw nb::python_error();
  };
  tessera_arg a;
  std::memset(&a, 0, sizeof a);
  a.kind = TESSERA_ARG_SCALAR;
  a.u.scalar.dtype = static_cast<tessera_dtype_t>(dtype);
  switch (dtype) {
  case TESSERA_DTYPE_F32:
  case TESSERA_DTYPE_F64: {
    double v = PyFloat_AsDouble(value.ptr());
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      bad("a number");
    }
    if (dtype == TESSERA_DTYPE_F32)
      a.u.scalar.value.f32 = static_cast<float>(v);
    else
      a.u.scalar.value.f64 = v;
    return a;
  }
  case TESSERA_DTYPE_F16:
  case TESSERA_DTYPE_BF16:
  case TESSERA_DTYPE_F8E4M3:
  case TESSERA_DTYPE_F8E5M2:
    // The Python side converts these to their bit pattern (an int).
  default: {
    if (PyFloat_Check(value.ptr()) && dtype != TESSERA_DTYPE_F16 &&
        dtype != TESSERA_DTYPE_BF16 && dtype != TESSERA_DTYPE_F8E4M3 &&
        dtype != TESSERA_DTYPE_F8E5M2)
      bad("an integer");
    long long v = PyLong_AsLongLong(value.ptr());
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      bad("an integer");
    }
    a.u.scalar.value.i = v;
    return a;
  }
  }
}

//===------------------------- tensors into launches
//------------------------===//

/// DLPack 1.2's C exchange API: `type(t).__dlpack_c_exchange_api__`, a
/// capsule named "dlpack_exchange_api" (torch has it from 2.10). Its
/// dltensor_from_py_object_no_sync fills a DLTensor view of a tensor and its
/// current_work_stream names the framework's current stream, both without a
/// Python call: ~20 ns where reading dtype, shape, stride(), get_device() and
/// data_ptr() through Python costs ~1 us a tensor. Declared here from the
/// specification (tessera/dlpack.h holds the 0.8 structures, which the view
/// uses); the entries tessera does not call are left untyped.
struct DLPackExchangeAPI {
  struct {
    struct {
      uint32_t major, minor;
    } version;
    void *prevApi;
  } header;
  void *managedTensorAllocator;
  void *managedTensorFromPyObjectNoSync;
  void *managedTensorToPyObjectNoSync;
  int (*dltensorFromPyObjectNoSync)(void *pyObject, DLTensor *out);
  int (*currentWorkStream)(DLDeviceType type, int32_t id, void **stream);
};

/// torch, registered once by tessera.runtime (register_torch): its tensor
/// type and dtypes are compared by identity on the launch path. References
/// are kept for the life of the process.
struct TorchInfo {
  PyObject *module = nullptr;
  PyObject *tensorType = nullptr;
  std::vector<std::pair<PyObject *, DLDataType>> dtypes;
  /// Null: tensors are read through their attributes (torch < 2.10).
  const DLPackExchangeAPI *api = nullptr;
  /// torch._C._cuda_getCurrentRawStream, where there is no exchange API.
  PyObject *rawStream = nullptr;
  PyObject *emptyLike = nullptr;
  /// The DLPack device type of torch's "cuda" tensors (kDLROCM on ROCm).
  int32_t gpuType = kDLCUDA;
} gTorch;

/// numpy, registered by tessera._jit on its first numpy call.
struct NumpyInfo {
  PyObject *arrayType = nullptr;
  PyObject *empty = nullptr;
  PyObject *dtype = nullptr;
} gNumpy;

/// Interned names for the launch path's attribute and method lookups.
PyObject *gNameDtype, *gNameShape, *gNameStride, *gNameDataPtr, *gNameGetDevice,
    *gNameDlpack, *gNameNewEmpty, *gKwnamesDtype;

void internNames() {
  if (gNameDtype)
    return;
  gNameDtype = PyUnicode_InternFromString("dtype");
  gNameShape = PyUnicode_InternFromString("shape");
  gNameStride = PyUnicode_InternFromString("stride");
  gNameDataPtr = PyUnicode_InternFromString("data_ptr");
  gNameGetDevice = PyUnicode_InternFromString("get_device");
  gNameDlpack = PyUnicode_InternFromString("__dlpack__");
  gNameNewEmpty = PyUnicode_InternFromString("new_empty");
  gKwnamesDtype = Py_BuildValue("(s)", "dtype");
}

/// One tensor argument as the runtime imports it for one launch: a torch
/// tensor's borrowed view (no deleter: the caller's tensor outlives the
/// call), or the DLManagedTensor of a DLPack capsule (numpy's, or one given
/// to Kernel.launch), which the runtime owns once imported.
struct TensorView {
  DLManagedTensor borrowed;
  int64_t shape[TESSERA_MAX_RANK], strides[TESSERA_MAX_RANK];
  DLManagedTensor *managed = nullptr;
  PyObject *capsule = nullptr; // renamed "used_dltensor" once imported
  const DLTensor &dl() const { return managed->dl_tensor; }
};

bool sameDtype(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/// Reads a torch tensor's dtype, shape, stride(), get_device() and
/// data_ptr() through Python (torch without the exchange API, and the
/// stand-in of python/tests). False with a Python error set on failure.
bool borrowTorchByAttributes(PyObject *t, TensorView &v, const char *kernel,
                             size_t index) {
  DLTensor &d = v.borrowed.dl_tensor;
  PyObject *dtype = PyObject_GetAttr(t, gNameDtype);
  if (!dtype)
    return false;
  bool known = false;
  for (auto &[obj, dl] : gTorch.dtypes)
    if (obj == dtype) {
      d.dtype = dl;
      known = true;
      break;
    }
  if (!known) {
    PyErr_Format(PyExc_TypeError,
                 "kernel '%s': argument %zu has dtype %S, which tessera has "
                 "no type for",
                 kernel, index, dtype);
    Py_DECREF(dtype);
    return false;
  }
  Py_DECREF(dtype);
  PyObject *shape = PyObject_GetAttr(t, gNameShape);
  if (!shape)
    return false;
  if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) > TESSERA_MAX_RANK) {
    PyErr_Format(PyExc_ValueError,
                 "kernel '%s': argument %zu has shape %S: a tuple of at most "
                 "%d dims expected",
                 kernel, index, shape, TESSERA_MAX_RANK);
    Py_DECREF(shape);
    return false;
  }
  Py_ssize_t rank = PyTuple_GET_SIZE(shape);
  PyObject *stride = PyObject_CallMethodNoArgs(t, gNameStride);
  if (!stride || !PyTuple_Check(stride) || PyTuple_GET_SIZE(stride) != rank) {
    if (stride || !PyErr_Occurred())
      PyErr_Format(PyExc_ValueError,
                   "kernel '%s': argument %zu: stride() does not match its "
                   "shape",
                   kernel, index);
    Py_XDECREF(stride);
    Py_DECREF(shape);
    return false;
  }
  for (Py_ssize_t i = 0; i < rank; ++i) {
    v.shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
    v.strides[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(stride, i));
  }
  Py_DECREF(stride);
  Py_DECREF(shape);
  PyObject *dev = PyObject_CallMethodNoArgs(t, gNameGetDevice);
  if (!dev)
    return false;
  long device = PyLong_AsLong(dev);
  Py_DECREF(dev);
  PyObject *ptr = PyObject_CallMethodNoArgs(t, gNameDataPtr);
  if (!ptr)
    return false;
  d.data = PyLong_AsVoidPtr(ptr);
  Py_DECREF(ptr);
  if (PyErr_Occurred())
    return false;
  d.device.device_type =
      device < 0 ? kDLCPU : static_cast<DLDeviceType>(gTorch.gpuType);
  d.device.device_id = device < 0 ? 0 : static_cast<int32_t>(device);
  d.ndim = static_cast<int32_t>(rank);
  d.shape = v.shape;
  d.strides = v.strides;
  d.byte_offset = 0;
  return true;
}

/// A torch tensor (exactly torch.Tensor) as a borrowed view: through the
/// exchange API where torch has it, else through its attributes.
bool borrowTorch(PyObject *t, TensorView &v, const char *kernel, size_t index) {
  v.borrowed.manager_ctx = nullptr;
  v.borrowed.deleter = nullptr;
  v.managed = &v.borrowed;
  v.capsule = nullptr;
  if (!gTorch.api)
    return borrowTorchByAttributes(t, v, kernel, index);
  DLTensor &d = v.borrowed.dl_tensor;
  if (gTorch.api->dltensorFromPyObjectNoSync(t, &d) != 0) {
    // A tensor the exchange API refuses (torch's DLPack export refuses more
    // than tessera needs, e.g. tensors that require grad): read it as
    // before the API existed.
    PyErr_Clear();
    return borrowTorchByAttributes(t, v, kernel, index);
  }
  for (auto &entry : gTorch.dtypes)
    if (sameDtype(entry.second, d.dtype))
      return true;
  // A dtype tessera has no type for: name it as torch does.
  PyObject *dtype = PyObject_GetAttr(t, gNameDtype);
  if (!dtype)
    return false;
  PyErr_Format(PyExc_TypeError,
               "kernel '%s': argument %zu has dtype %S, which tessera has no "
               "type for",
               kernel, index, dtype);
  Py_DECREF(dtype);
  return false;
}

/// An unused DLPack capsule's tensor (the capsule stays the caller's until
/// the runtime imports it).
bool borrowCapsule(PyObject *capsule, TensorView &v, const char *kernel,
                   size_t index) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) {
    PyErr_Format(PyExc_TypeError,
                 "kernel '%s': argument %zu must be a DLPack capsule (an "
                 "unused 'dltensor')",
                 kernel, index);
    return false;
  }
  v.managed =
      static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule, "dltensor"));
  v.capsule = capsule;
  return true;
}

/// Buffers wrapped for one launch; released on exit (DLPack deleters of
/// imported capsules run then, with the GIL held).
struct HeldBuffers {
  tessera_buffer_t inlined[32];
  std::vector<tessera_buffer_t> more;
  size_t count = 0;
  void add(tessera_buffer_t b) {
    if (count < 32)
      inlined[count++] = b;
    else
      more.push_back(b);
  }
  ~HeldBuffers() {
    for (size_t i = 0; i < count; ++i)
      tessera_buffer_release(inlined[i]);
    for (tessera_buffer_t b : more)
      tessera_buffer_release(b);
  }
};

/// Imports one view as a runtime buffer and argument; raises on refusal.
void importTensor(const Kernel &k, TensorView &v, size_t index,
                  tessera_arg &arg, HeldBuffers &held) {
  tessera_buffer_t buffer = nullptr;
  if (tessera_status_t s =
          tessera_buffer_from_dlpack(k.device, v.managed, &buffer, &arg))
    raise(s, "kernel '" + k.name + "': argument " + std::to_string(index));
  held.add(buffer);
  // The runtime owns a capsule's tensor now; the capsule must not delete it.
  if (v.capsule)
    PyCapsule_SetName(v.capsule, "used_dltensor");
}

/// Runs the launch with the GIL released (the driver may block while its
/// queue is full, and the CPU plugin runs the kernel in the call).
void launchArgs(const Kernel &k, tessera_stream_t stream, const tessera_arg *a,
                uint32_t n) {
  tessera_status_t s;
  {
    nb::gil_scoped_release release;
    s = tessera_kernel_launch(k.handle, stream, a, n);
  }
  if (s)
    raise(s, "");
}

/// Tessera streams over native streams (torch's current streams), one per
/// (device, native stream), kept for the life of the process as torch keeps
/// its streams; guarded by the GIL.
struct WrappedStream {
  tessera_device_t device;
  void *native;
  tessera_stream_t stream;
};
std::vector<WrappedStream> gWrappedStreams;

/// The tessera stream over `native` (null: the device's default stream).
tessera_stream_t wrapStream(tessera_device_t device, void *native) {
  if (!native)
    return nullptr;
  for (const WrappedStream &w : gWrappedStreams)
    if (w.device == device && w.native == native)
      return w.stream;
  tessera_stream_t stream = nullptr;
  check(tessera_stream_wrap(device, native, &stream),
        "cannot wrap the native stream");
  gWrappedStreams.push_back({device, native, stream});
  return stream;
}

void launch(Kernel &k, nb::handle args, uintptr_t stream) {
  nb::object seq = nb::steal(
      PySequence_Fast(args.ptr(), "Kernel.launch takes a list of arguments"));
  if (!seq.is_valid())
    throw nb::python_error();
  size_t n = PySequence_Fast_GET_SIZE(seq.ptr());
  PyObject **items = PySequence_Fast_ITEMS(seq.ptr());
  if (n != k.signature.size()) {
    PyErr_Format(PyExc_TypeError, "kernel '%s' takes %zu arguments, got %zu",
                 k.name.c_str(), k.signature.size(), n);
    throw nb::python_error();
  }
  tessera_arg argvSmall[32];
  std::vector<tessera_arg> argvBig;
  TensorView viewsSmall[8];
  std::vector<TensorView> viewsBig;
  tessera_arg *a = argvSmall;
  TensorView *views = viewsSmall;
  if (n > 32) {
    argvBig.resize(n);
    a = argvBig.data();
  }
  if (n > 8) {
    viewsBig.resize(n);
    views = viewsBig.data();
  }
  // Declared after the views: released (deleters run) before they go.
  HeldBuffers held;
  const char *name = k.name.c_str();
  for (size_t i = 0; i < n; ++i) {
    PyObject *item = items[i];
    if (k.signature[i] != kTensor) {
      a[i] = scalarArg(item, k.signature[i], k, i);
      continue;
    }
    bool ok = gTorch.tensorType &&
                      Py_TYPE(item) ==
                          reinterpret_cast<PyTypeObject *>(gTorch.tensorType)
                  ? borrowTorch(item, views[i], name, i)
                  : borrowCapsule(item, views[i], name, i);
    if (!ok)
      throw nb::python_error();
    importTensor(k, views[i], i, a[i], held);
  }
  launchArgs(k, reinterpret_cast<tessera_stream_t>(stream), a,
             static_cast<uint32_t>(n));
}

//===------------------------------ fast calls
//------------------------------===//

/// The object FastCall.run returns when it leaves a call to the Python path
/// (tessera._jit), which then handles it (and raises its errors).
PyObject *gSlow = nullptr;

/// Whether a view is compact row-major (strides of size-1 dims aside).
bool isCompact(const DLTensor &d) {
  if (!d.strides)
    return true;
  int64_t expected = 1;
  for (int32_t i = d.ndim - 1; i >= 0; --i) {
    if (d.shape[i] != 1 && d.strides[i] != expected)
      return false;
    expected *= d.shape[i];
  }
  return true;
}

/// A JITKernel's whole call in C++ (`kernel(*args)` without Python between
/// the call and the driver): torch tensors (exactly torch.Tensor, CPU or
/// GPU) and numpy arrays, outputs allocated beside the first input (torch:
/// torch.empty_like, or Tensor.new_empty for another shape or dtype; numpy:
/// numpy.empty), torch's current stream of the tensors' GPU, scalars as
/// Python numbers. Whatever it does not handle — other argument types,
/// tensors on two devices, a device not registered yet, a scalar Python must
/// convert (f16/bf16/fp8), an output dim the inputs lack — it leaves to the
/// Python path by returning SLOW before launching anything; the runtime's
/// own refusals (dtype, rank, dims, layout) raise here with its message.
struct FastCall {
  static constexpr size_t kMaxArgs = 32;
  struct Output {
    uint32_t arg;
    /// Per dim: (input position, dim of it) or (-1, static size).
    std::vector<std::pair<int32_t, int64_t>> dims;
    DLDataType dtype;
    std::string torchName, numpyName;                      // "": none
    PyObject *torchDtype = nullptr, *numpyDtype = nullptr; // resolved once
  };
  struct Target {
    int32_t deviceType, deviceId;
    nb::object kernelObject; // keeps the Kernel (and its module) alive
    Kernel *kernel;
  };

  std::string kernelName;
  uint32_t nAll = 0, nIn = 0;
  std::vector<int> signature;
  std::vector<uint32_t> inputArgs; // argument index of each input
  std::vector<uint8_t> isOutput;   // per argument
  std::vector<Output> outputs;
  int32_t likeArg = -1; // the first input tensor's argument index
  bool enabled = true;
  std::vector<Target> targets;

  ~FastCall() {
    for (Output &o : outputs) {
      Py_XDECREF(o.torchDtype);
      Py_XDECREF(o.numpyDtype);
    }
  }

  PyObject *slow() {
    Py_INCREF(gSlow);
    return gSlow;
  }
  PyObject *run(PyObject *args);
};

PyObject *FastCall::run(PyObject *args) {
  if (!enabled || !PyTuple_Check(args) || nAll > kMaxArgs)
    return slow();
  size_t n = static_cast<size_t>(PyTuple_GET_SIZE(args));
  bool allocate = false;
  if (n == nAll)
    allocate = false;
  else if (n == nIn && !outputs.empty())
    allocate = true;
  else
    return slow();
  PyObject *full[kMaxArgs];
  if (allocate) {
    for (uint32_t j = 0; j < nIn; ++j)
      full[inputArgs[j]] = PyTuple_GET_ITEM(args, j);
  } else {
    for (uint32_t i = 0; i < nAll; ++i)
      full[i] = PyTuple_GET_ITEM(args, i);
  }
  PyTypeObject *torchType = reinterpret_cast<PyTypeObject *>(gTorch.tensorType);
  PyTypeObject *arrayType = reinterpret_cast<PyTypeObject *>(gNumpy.arrayType);

  // Views of the given tensors, all on one device. Owned references (numpy
  // capsules, allocated outputs) drop on every exit; the runtime's buffers
  // (declared after them) are released first.
  TensorView views[kMaxArgs];
  nb::object owned[kMaxArgs], capsules[kMaxArgs];
  int32_t deviceType = 0, deviceId = 0;
  bool haveDevice = false;
  const char *name = kernelName.c_str();
  for (uint32_t i = 0; i < nAll; ++i) {
    if (signature[i] != kTensor || (allocate && isOutput[i]))
      continue;
    PyObject *t = full[i];
    PyTypeObject *type = Py_TYPE(t);
    if (type == torchType && torchType) {
      if (!borrowTorch(t, views[i], name, i))
        throw nb::python_error();
    } else if (type == arrayType && arrayType) {
      capsules[i] = nb::steal(PyObject_CallMethodNoArgs(t, gNameDlpack));
      if (!capsules[i].is_valid())
        throw nb::python_error();
      if (!borrowCapsule(capsules[i].ptr(), views[i], name, i))
        throw nb::python_error();
    } else {
      return slow();
    }
    const DLDevice &dev = views[i].dl().device;
    if (!haveDevice) {
      deviceType = dev.device_type;
      deviceId = dev.device_id;
      haveDevice = true;
    } else if (dev.device_type != deviceType || dev.device_id != deviceId) {
      return slow(); // the Python path names both devices
    }
  }
  if (!haveDevice)
    return slow();
  Target *target = nullptr;
  for (Target &t : targets)
    if (t.deviceType == deviceType && t.deviceId == deviceId) {
      target = &t;
      break;
    }
  if (!target)
    return slow(); // the Python path loads the kernel and registers it
  Kernel &k = *target->kernel;

  tessera_arg argv[kMaxArgs];
  for (uint32_t i = 0; i < nAll; ++i) {
    if (signature[i] == kTensor)
      continue;
    if (signature[i] == TESSERA_DTYPE_I1) {
      int truth = PyObject_IsTrue(full[i]);
      if (truth < 0) {
        PyErr_Clear();
        return slow();
      }
      argv[i] = tessera_arg_i64(TESSERA_DTYPE_I1, truth);
      continue;
    }
    try {
      argv[i] = scalarArg(full[i], signature[i], k, i);
    } catch (nb::python_error &) {
      return slow(); // the Python path converts (float("1.5"), ...) or says why
    }
  }

  // torch's current stream of the tensors' GPU, before anything is allocated.
  tessera_stream_t stream = nullptr;
  if (deviceType != kDLCPU) {
    void *native = nullptr;
    if (gTorch.api) {
      if (gTorch.api->currentWorkStream(static_cast<DLDeviceType>(deviceType),
                                        deviceId, &native) != 0)
        throw nb::python_error();
    } else if (gTorch.rawStream) {
      nb::object index = nb::steal(PyLong_FromLong(deviceId));
      nb::object raw =
          nb::steal(PyObject_CallOneArg(gTorch.rawStream, index.ptr()));
      if (!raw.is_valid())
        throw nb::python_error();
      native = PyLong_AsVoidPtr(raw.ptr());
      if (PyErr_Occurred())
        throw nb::python_error();
    } else {
      return slow();
    }
    stream = wrapStream(k.device, native);
  }

  if (allocate) {
    PyObject *like = full[likeArg];
    const DLTensor &likeView = views[likeArg].dl();
    bool torchLike = Py_TYPE(like) == torchType && torchType;
    for (Output &o : outputs) {
      int64_t shape[TESSERA_MAX_RANK];
      size_t rank = o.dims.size();
      for (size_t d = 0; d < rank; ++d) {
        auto [pos, dim] = o.dims[d];
        if (pos < 0) {
          shape[d] = dim;
          continue;
        }
        uint32_t arg = inputArgs[pos];
        if (signature[arg] != kTensor || dim >= views[arg].dl().ndim)
          return slow(); // the Python path says which dim is missing
        shape[d] = views[arg].dl().shape[dim];
      }
      PyObject *out = nullptr;
      bool sameAsLike = torchLike && sameDtype(likeView.dtype, o.dtype) &&
                        likeView.ndim == static_cast<int32_t>(rank) &&
                        isCompact(likeView);
      for (size_t d = 0; sameAsLike && d < rank; ++d)
        sameAsLike = likeView.shape[d] == shape[d];
      if (sameAsLike) {
        out = PyObject_CallOneArg(gTorch.emptyLike, like);
      } else {
        PyObject **dtype = torchLike ? &o.torchDtype : &o.numpyDtype;
        const std::string &dtypeName = torchLike ? o.torchName : o.numpyName;
        if (dtypeName.empty() || (!torchLike && !gNumpy.empty))
          return slow(); // e.g. bf16 from numpy inputs: Python says why
        if (!*dtype) {
          *dtype =
              torchLike
                  ? PyObject_GetAttrString(gTorch.module, dtypeName.c_str())
                  : PyObject_CallFunction(gNumpy.dtype, "s", dtypeName.c_str());
          if (!*dtype)
            throw nb::python_error();
        }
        nb::object shapeTuple = nb::steal(PyTuple_New(rank));
        for (size_t d = 0; d < rank; ++d)
          PyTuple_SET_ITEM(shapeTuple.ptr(), d, PyLong_FromLongLong(shape[d]));
        if (torchLike) {
          PyObject *callArgs[] = {like, shapeTuple.ptr(), *dtype};
          out = PyObject_VectorcallMethod(gNameNewEmpty, callArgs, 2,
                                          gKwnamesDtype);
        } else {
          PyObject *callArgs[] = {shapeTuple.ptr(), *dtype};
          out = PyObject_Vectorcall(gNumpy.empty, callArgs, 2, nullptr);
        }
      }
      if (!out)
        throw nb::python_error();
      owned[o.arg] = nb::steal(out);
      full[o.arg] = out;
      bool ok;
      if (torchLike) {
        ok = borrowTorch(out, views[o.arg], name, o.arg);
      } else {
        capsules[o.arg] =
            nb::steal(PyObject_CallMethodNoArgs(out, gNameDlpack));
        ok = capsules[o.arg].is_valid() &&
             borrowCapsule(capsules[o.arg].ptr(), views[o.arg], name, o.arg);
      }
      if (!ok)
        throw nb::python_error();
    }
  }

  HeldBuffers held;
  for (uint32_t i = 0; i < nAll; ++i)
    if (signature[i] == kTensor)
      importTensor(k, views[i], i, argv[i], held);
  launchArgs(k, stream, argv, nAll);

  if (outputs.empty())
    Py_RETURN_NONE;
  if (outputs.size() == 1) {
    PyObject *r = full[outputs[0].arg];
    Py_INCREF(r);
    return r;
  }
  PyObject *list = PyList_New(outputs.size());
  if (!list)
    throw nb::python_error();
  for (size_t j = 0; j < outputs.size(); ++j) {
    PyObject *r = full[outputs[j].arg];
    Py_INCREF(r);
    PyList_SET_ITEM(list, j, r);
  }
  return list;
}

/// FastCall.run as a plain METH_O builtin bound to its FastCall: the call
/// goes from the interpreter straight here, without nanobind's dispatch.
PyObject *fastCallRun(PyObject *self, PyObject *args) {
  try {
    return nb::inst_ptr<FastCall>(self)->run(args);
  } catch (nb::python_error &e) {
    e.restore();
    return nullptr;
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

PyMethodDef gFastCallRunDef = {
    "run", fastCallRun, METH_O,
    "run(args: tuple): the call's outputs, or tessera._runtime.SLOW when the "
    "Python path must handle it."};

/// The compile cache entry for `source` compiled for `targets`, or None:
/// the key the compiler library computes (CompileKey.h) over the compiler
/// plugins found beside the runtime. Lets a process answer a cached compile
/// without loading libMLIR.
nb::object cacheLookup(const std::string &source,
                       const std::vector<std::string> &targets, int optLevel,
                       const std::string &pluginDir) {
  tessera::CompileCache cache;
  if (!cache.enabled())
    return nb::none();
  std::vector<tessera::TargetSpec> specs;
  std::vector<std::string> list = targets;
  if (list.empty())
    list.push_back(tessera::hostTriple());
  for (const std::string &t : list) {
    tessera::TargetSpec spec;
    std::string error;
    if (!tessera::splitTargetSpec(t, spec, error))
      return nb::none();
    specs.push_back(spec);
  }
  std::string key = tessera::compileCacheKey(
      source, optLevel, specs,
      tessera::CompilerPluginIndex::fromSearchPath(pluginDir));
  std::string bytes;
  if (cache.get(key, bytes) != tessera::CompileCache::Lookup::Hit)
    return nb::none();
  return nb::bytes(bytes.data(), bytes.size());
}

} // namespace

NB_MODULE(_runtime, m) {
  m.doc() = "tessera runtime C API (no MLIR)";
  gRuntimeError = nb::borrow(PyExc_RuntimeError);
  m.def("set_error_type", [](nb::object type) { gRuntimeError = type; });
  m.def("devices", &devices, "The devices of every ready plugin.");
  m.def("plugins", &plugins, "Every plugin manifest found and its state.");
  m.def("host_triple", [] { return tessera::hostTriple(); });
  m.def("library_dir", [] {
    // The folder of libtessera_runtime.so: plugins live in tessera/plugins
    // below it, and the compiler library beside it.
    Dl_info info;
    if (!dladdr(reinterpret_cast<void *>(&tessera_runtime_create), &info) ||
        !info.dli_fname)
      return std::string();
    std::string path = info.dli_fname;
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".")
                                      : path.substr(0, slash);
  });
  m.def(
      "register_torch",
      [](nb::handle torch, nb::handle tensorType, nb::list pairs,
         nb::handle exchange, nb::handle rawStream, nb::handle emptyLike,
         bool hip) {
        // torch, torch.Tensor, [(torch.dtype, (DLPack code, bits)), ...],
        // torch.Tensor.__dlpack_c_exchange_api__ or None,
        // torch._C._cuda_getCurrentRawStream or None, torch.empty_like; each
        // kept alive (one reference, never dropped).
        internNames();
        auto keep = [](nb::handle h) {
          Py_INCREF(h.ptr());
          return h.ptr();
        };
        gTorch = TorchInfo();
        gTorch.module = keep(torch);
        gTorch.tensorType = keep(tensorType);
        gTorch.emptyLike = keep(emptyLike);
        gTorch.rawStream = rawStream.is_none() ? nullptr : keep(rawStream);
        gTorch.gpuType = hip ? kDLROCM : kDLCUDA;
        for (nb::handle p : pairs) {
          nb::tuple t = nb::cast<nb::tuple>(p);
          nb::tuple dl = nb::cast<nb::tuple>(t[1]);
          DLDataType d;
          d.code = nb::cast<uint8_t>(dl[0]);
          d.bits = nb::cast<uint8_t>(dl[1]);
          d.lanes = 1;
          gTorch.dtypes.push_back({keep(t[0]), d});
        }
        // The exchange API of DLPack 1.2 or a later 1.x (an API of another
        // major version may chain to one of ours).
        if (!exchange.is_none() &&
            PyCapsule_IsValid(exchange.ptr(), "dlpack_exchange_api")) {
          auto *api = static_cast<const DLPackExchangeAPI *>(
              PyCapsule_GetPointer(exchange.ptr(), "dlpack_exchange_api"));
          while (api && api->header.version.major != 1)
            api = static_cast<const DLPackExchangeAPI *>(api->header.prevApi);
          if (api && api->header.version.minor >= 2 &&
              api->dltensorFromPyObjectNoSync && api->currentWorkStream) {
            keep(exchange);
            gTorch.api = api;
          }
        }
        PyErr_Clear();
        return gTorch.api != nullptr;
      },
      nb::arg("torch"), nb::arg("tensor_type"), nb::arg("pairs"),
      nb::arg("exchange_api").none(), nb::arg("raw_stream").none(),
      nb::arg("empty_like"), nb::arg("hip"),
      "Registers torch so that launches take torch tensors as they are "
      "(borrowed for the call, no DLPack capsule); True when tensors are read "
      "through torch's DLPack exchange API.");
  m.def(
      "register_numpy",
      [](nb::handle numpy) {
        internNames();
        gNumpy.arrayType = numpy.attr("ndarray").inc_ref().ptr();
        gNumpy.empty = numpy.attr("empty").inc_ref().ptr();
        gNumpy.dtype = numpy.attr("dtype").inc_ref().ptr();
      },
      nb::arg("numpy"), "Registers numpy for FastCall (kept alive).");
  m.def("cache_lookup", &cacheLookup, nb::arg("source"), nb::arg("targets"),
        nb::arg("opt_level"), nb::arg("plugin_dir"));
  m.def(
      "wrap_stream",
      [](uint32_t deviceIndex, uintptr_t native) {
        tessera_device_t dev = nullptr;
        check(tessera_runtime_device(runtimeHandle(), deviceIndex, &dev));
        return reinterpret_cast<uintptr_t>(
            wrapStream(dev, reinterpret_cast<void *>(native)));
      },
      nb::arg("device"), nb::arg("native"),
      "A tessera stream handle over a native stream (a CUstream; 0: the "
      "device's default stream), one per native stream and device for the "
      "life of the process (FastCall shares them).");
  m.def(
      "destroy_stream",
      [](uintptr_t stream) {
        auto *s = reinterpret_cast<tessera_stream_t>(stream);
        for (auto it = gWrappedStreams.begin(); it != gWrappedStreams.end();
             ++it)
          if (it->stream == s) {
            gWrappedStreams.erase(it);
            break;
          }
        tessera_stream_destroy(s);
      },
      nb::arg("stream"));
  m.def("dtype_name", [](int d) {
    return std::string(tessera_dtype_name(static_cast<tessera_dtype_t>(d)));
  });

  nb::class_<Module>(m, "Module")
      .def(nb::init<uint32_t, nb::bytes, std::string>(), nb::arg("device"),
           nb::arg("bundle"), nb::arg("name"))
      .def_prop_ro("kernel_names", &Module::kernelNames);

  nb::class_<Kernel>(m, "Kernel")
      .def(
          "__init__",
          [](Kernel *self, nb::object moduleObj, const std::string &name,
             std::vector<int> signature) {
            Module &module = nb::cast<Module &>(moduleObj);
            new (self) Kernel();
            check(tessera_module_get_kernel(module.handle, name.c_str(),
                                            &self->handle));
            self->device = module.device;
            self->name = name;
            self->signature = std::move(signature);
            // Keep the module (and so the loaded image) alive.
            PyObject *held = moduleObj.ptr();
            Py_INCREF(held);
            self->moduleKeepAlive = std::shared_ptr<void>(held, [](void *p) {
              nb::gil_scoped_acquire gil;
              Py_DECREF(static_cast<PyObject *>(p));
            });
          },
          nb::arg("module"), nb::arg("name"), nb::arg("signature"))
      .def_ro("name", &Kernel::name)
      .def_ro("signature", &Kernel::signature)
      .def("launch", &launch, nb::arg("args"), nb::arg("stream") = 0,
           "Launches with DLPack capsules (tensors) and numbers (scalars).");

  gSlow = PyObject_CallNoArgs(reinterpret_cast<PyObject *>(&PyBaseObject_Type));
  m.attr("SLOW") = nb::handle(gSlow);
  nb::class_<FastCall>(m, "FastCall")
      .def(
          "__init__",
          [](FastCall *self, const std::string &kernelName,
             std::vector<int> signature, std::vector<uint32_t> inputArgs,
             nb::list outputs, int likeArg, bool enabled) {
            new (self) FastCall();
            self->kernelName = kernelName;
            self->nAll = static_cast<uint32_t>(signature.size());
            self->nIn = static_cast<uint32_t>(inputArgs.size());
            self->signature = std::move(signature);
            self->inputArgs = std::move(inputArgs);
            self->isOutput.assign(self->nAll, 0);
            self->likeArg = likeArg;
            self->enabled = enabled && self->nAll <= FastCall::kMaxArgs;
            for (uint32_t a : self->inputArgs)
              if (a >= self->nAll)
                throw nb::value_error("FastCall: input argument out of range");
            for (nb::handle h : outputs) {
              // (argument, [(input position or -1, dim or size)],
              //  (DLPack code, bits), torch dtype name, numpy dtype name)
              nb::tuple t = nb::cast<nb::tuple>(h);
              FastCall::Output o;
              o.arg = nb::cast<uint32_t>(t[0]);
              if (o.arg >= self->nAll)
                throw nb::value_error("FastCall: output out of range");
              for (nb::handle d : nb::cast<nb::list>(t[1])) {
                nb::tuple dim = nb::cast<nb::tuple>(d);
                int32_t pos = nb::cast<int32_t>(dim[0]);
                if (pos >= static_cast<int32_t>(self->nIn))
                  throw nb::value_error("FastCall: dim of no input");
                o.dims.push_back({pos, nb::cast<int64_t>(dim[1])});
              }
              if (o.dims.size() > TESSERA_MAX_RANK)
                throw nb::value_error("FastCall: output rank above the limit");
              nb::tuple dl = nb::cast<nb::tuple>(t[2]);
              o.dtype.code = nb::cast<uint8_t>(dl[0]);
              o.dtype.bits = nb::cast<uint8_t>(dl[1]);
              o.dtype.lanes = 1;
              if (!t[3].is_none())
                o.torchName = nb::cast<std::string>(t[3]);
              if (!t[4].is_none())
                o.numpyName = nb::cast<std::string>(t[4]);
              self->isOutput[o.arg] = 1;
              self->outputs.push_back(std::move(o));
            }
            if (!self->outputs.empty() &&
                (likeArg < 0 || likeArg >= static_cast<int>(self->nAll) ||
                 self->signature[likeArg] != kTensor))
              self->enabled = false;
          },
          nb::arg("kernel_name"), nb::arg("signature"), nb::arg("input_args"),
          nb::arg("outputs"), nb::arg("like_arg"), nb::arg("enabled"))
      .def(
          "add_target",
          [](FastCall &f, int deviceType, int deviceId, nb::object kernel) {
            Kernel &k = nb::cast<Kernel &>(kernel);
            for (FastCall::Target &t : f.targets)
              if (t.deviceType == deviceType && t.deviceId == deviceId) {
                t.kernelObject = kernel;
                t.kernel = &k;
                return;
              }
            f.targets.push_back({deviceType, deviceId, kernel, &k});
          },
          nb::arg("device_type"), nb::arg("device_id"), nb::arg("kernel"),
          "Launches on tensors of this DLPack device go to `kernel`.")
      .def(
          "runner",
          [](nb::handle self) {
            return nb::steal(PyCFunction_New(&gFastCallRunDef, self.ptr()));
          },
          "The call as a builtin taking the argument tuple (see FastCall).");
}
